// Timing of read calls by shape for the list benchmarks (bench/dlq.ts, bench/executions.ts):
// `timed(shape, fn)` runs fn, and records its wall time under the shape and in `all`.
export interface ShapeTimer {
  times: Map<string, number[]>;
  all: number[];
  timed<T>(shape: string, fn: () => Promise<T>): Promise<T>;
}

export function shapeTimer(): ShapeTimer {
  const times = new Map<string, number[]>();
  const all: number[] = [];
  return {
    times,
    all,
    async timed(shape, fn) {
      const s = performance.now();
      const out = await fn();
      const ms = performance.now() - s;
      all.push(ms);
      (times.get(shape) ?? times.set(shape, []).get(shape)!).push(ms);
      return out;
    },
  };
}
