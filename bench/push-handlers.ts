// The push benchmark's coordinators serve one task and never get work: the benchmark
// measures config push, not execution.
export default {
  'push-bench': async () => {},
};
