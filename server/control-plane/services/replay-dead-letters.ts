// Control-plane service: works through DLQ replay jobs (services/dead-letter-replay-runner.ts).
// The runner's advisory lock makes one process run this per tick; each job is also leased
// (dlq_replay_jobs.lease_owner), so a CLI waiting on its own job, or a second process
// after a lost lock, never works a job twice. A tick works for at most RUN_BUDGET_MS, then
// hands the job back (progress is in the database) so shutdowns stay quick; the next tick,
// a second later, continues it.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { ControlPlaneService } from '../service';
import { runReplayJobs } from '../../services/dead-letter-replay-runner';

const RUN_BUDGET_MS = 15_000;
const OWNER = `cp:${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

export const replayDeadLettersService: ControlPlaneService = {
  name: 'replay-dead-letters',
  intervalMs: 1_000,
  mode: 'steps',
  leaseMs: 60_000,
  async run(ctx) {
    const s = await runReplayJobs(ctx.pool, { owner: OWNER, deadline: Date.now() + RUN_BUDGET_MS, log: ctx.log });
    return { jobs: s.jobs };
  },
};
