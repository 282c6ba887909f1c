// Types for workloads.mjs (plain JS so the peers' drivers can run it under Node 24 without a
// TypeScript loader); used by TypeScript callers: the Sluice driver and the tests.

export type WorkloadName = 'w1' | 'w2' | 'w4';

export interface WorkloadSpec {
  workload: WorkloadName;
  jobs: number;
  concurrency: number;
  tenants: number;
  keysPerTenant: number;
  tenantLimit: number;
  keyLimit: number;
  workMs: number;
  streams: number;
  events: number;
  timeoutMs: number;
}

export interface BenchJob {
  index: number;
  tenant: string | null;
  key: string | null;
  stream: string | null;
  seq: number;
}

export interface WorkloadResult {
  workload: WorkloadName;
  jobs: number;
  completed: number;
  missing: number;
  duplicates: number;
  seconds: number;
  jobsPerSecond: number;
  maxConcurrency: number;
  maxPerTenant: number | null;
  maxPerKey: number | null;
  tenantLimit: number | null;
  keyLimit: number | null;
  limitViolations: number | null;
  orderViolations: number | null;
  [extra: string]: unknown;
}

export const WORKLOADS: WorkloadName[];
export function workloadSpec(args: Record<string, string | undefined>): WorkloadSpec;
export function buildJobs(spec: WorkloadSpec): BenchJob[];

export class RunRecorder {
  constructor(total: number);
  readonly total: number;
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  readonly runs: Uint32Array;
  readonly extra: [number, number, number][];
  done: number;
  start(index: number): number;
  end(index: number, startedAt: number): void;
  record(index: number, startedAt: number, endedAt: number): void;
  waitAll(timeoutMs: number): Promise<boolean>;
  crashed: boolean;
  /** performance.now() of the last finished run (or of the store answering again, markStoreBack). */
  lastProgress: number;
  /** Crash mode: performance.now() when the store answered again (markStoreBack), if seen. */
  storeBackAt?: number;
  armCrash(n: number): void;
}

/** Crash mode: the store answered again; the settle window counts from now at the earliest. */
export function markStoreBack(rec: RunRecorder): void;
export function waitSettled(rec: RunRecorder, timeoutMs: number, settleMs: number): Promise<boolean>;

export function summarize(
  spec: WorkloadSpec,
  jobs: BenchJob[],
  rec: RunRecorder,
  t0: number,
  extra?: Record<string, unknown>,
): WorkloadResult;
export function parseArgs(argv: string[]): Record<string, string>;
export function sleep(ms: number): Promise<void>;
export function printResult(result: Record<string, unknown>): void;
export function runDriver(system: string, main: () => Promise<Record<string, unknown>>): Promise<void>;
