// The task definition: the unit of configuration an operator edits and a coordinator
// applies. One zod schema serves the CLI (`sluice config apply`), the REST/tRPC
// inputs and the browser forms, so a field error reads the same everywhere.
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { inputRecord, inputText } from './input-text';
import { taskRetentionSchema } from './retention-policy';
import { issueFieldErrors, type FieldError } from './errors';

/** A dot path into the payload, e.g. `tenant` or `customer.id`. */
export const KEY_PATH_RE = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*$/;
export const keyPathSchema = inputText
  .max(200, 'is too long')
  .regex(KEY_PATH_RE, 'must be a dot path such as "tenant" or "customer.id"');

export const TASK_NAME_RE = /^[a-z0-9][a-z0-9._-]{0,62}$/;
/** Names the browser uses as routes under /tasks/ (e.g. /tasks/new) cannot be task names. */
export const RESERVED_TASK_NAMES = ['new'] as const;
export const taskNameSchema = inputText
  .regex(TASK_NAME_RE, 'lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63 characters')
  .refine((n) => !(RESERVED_TASK_NAMES as readonly string[]).includes(n), { message: 'is reserved (it names a page); pick another name' });

export const GROUP_NAME_RE = /^[a-z][a-z0-9_-]{0,39}$/;

// Numbers say what they must be in one style ("must be at least 1", "must be a whole
// number"), the style of every custom message here, never zod's defaults ("Too small:
// expected number to be >=1"); the task editor shows them beside the field's label.
const number = (min: number, max: number) => z.number({ error: 'must be a number' }).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);
const whole = (min: number, max: number) => number(min, max).int('must be a whole number');

const limit = whole(1, 1_000_000);

export const groupSchema = z.strictObject({
  name: inputText.regex(GROUP_NAME_RE, 'lowercase letters, digits, "_" or "-", starting with a letter'),
  limit,
  /** Where the key comes from when the producer does not pass it explicitly. */
  keyPath: keyPathSchema.optional(),
  /** Per-key limits that win over `limit`, e.g. `{ acme: 50 }`. */
  overrides: inputRecord(z.string().min(1).max(200), limit).default({}),
});

/** Concurrency groups per task: what the claim carries (docs/architecture.md § "How many groups"). */
export const MAX_GROUPS = 16;

export const ROUTING_STRATEGIES = ['round-robin', 'hash', 'random', 'least-loaded'] as const;
export const routingSchema = z.strictObject({
  strategy: z.enum(ROUTING_STRATEGIES).default('round-robin'),
  keyPath: keyPathSchema.optional(),
});

export const retrySchema = z.strictObject({
  maxAttempts: whole(1, 100).default(3),
  backoff: z.enum(['fixed', 'exponential']).default('exponential'),
  baseDelayMs: whole(0, 86_400_000).default(1000),
  maxDelayMs: whole(0, 7 * 86_400_000).default(60_000),
  /** 0 = none, 1 = full jitter; the fraction of the delay that is randomised. */
  jitter: number(0, 1).default(0.2),
});

export const BACKPRESSURE_POLICIES = ['reject', 'throttle', 'shed', 'spill'] as const;
export const backpressureSchema = z.strictObject({
  /** Queued + scheduled-retry executions per partition before the policy applies. */
  maxDepth: whole(1, 100_000_000).default(10_000),
  policy: z.enum(BACKPRESSURE_POLICIES).default('reject'),
  /** reject: the Retry-After the caller is told. */
  retryAfterMs: whole(1, 3_600_000).default(1000),
  /** throttle: delay per execution beyond maxDepth, capped by throttleMaxDelayMs. */
  throttleDelayMs: whole(0, 60_000).default(100),
  throttleMaxDelayMs: whole(0, 600_000).default(5000),
  /** shed: percentage of over-limit executions dropped (counted, reported). */
  shedPercent: number(0, 100).default(50),
});

export const dlqSchema = z.strictObject({
  maxDepth: whole(1, 100_000_000).default(100_000),
  retentionDays: whole(1, 3650).default(14),
});

/** A warning/critical pair; `max` bounds rates (fractions: 1 = 100%). */
const thresholdPair = (warning: number, critical: number, max?: { value: number; message: string }) => {
  const line = max
    ? z.number({ error: 'must be a number' }).min(0, 'must be at least 0').max(max.value, max.message)
    : z.number({ error: 'must be a number' }).min(0, 'must be at least 0');
  return z
    .strictObject({ warning: line, critical: line })
    .default({ warning, critical })
    .refine((t) => t.warning < t.critical, { message: 'warning must be below critical', path: ['warning'] });
};
const RATE_MAX = { value: 1, message: 'must be at most 100%' };

/** The longest a task may ask a condition to hold before its alert fires. */
export const MAX_ALERT_AFTER_MS = 3_600_000;

/**
 * Defaults from seed 000's metric table (DESIGN.md). Rates are fractions (0.1 = 10%).
 * `alertAfterMs`: how long any of the task's alert conditions (these lines, hot
 * partition, hot key) must hold before its alert fires; absent = the alert evaluator's
 * default (one minute, DEFAULT_ALERT_POLICY.forMs). 0 fires on the first evaluation that
 * sees the breach (the evaluator runs every 15 s).
 */
export const thresholdsSchema = z
  .strictObject({
    depth: thresholdPair(1000, 5000),
    imbalance: thresholdPair(2, 5),
    retryRate: thresholdPair(0.1, 0.25, RATE_MAX),
    dlqRate: thresholdPair(0.01, 0.05, RATE_MAX),
    p99LatencyMs: thresholdPair(5000, 30_000),
    alertAfterMs: z
      .number()
      .int('must be a whole number of ms')
      .min(0, 'must be at least 0')
      .max(MAX_ALERT_AFTER_MS, 'must be at most an hour (3600000 ms)')
      .optional(),
  })
  .default({
    depth: { warning: 1000, critical: 5000 },
    imbalance: { warning: 2, critical: 5 },
    retryRate: { warning: 0.1, critical: 0.25 },
    dlqRate: { warning: 0.01, critical: 0.05 },
    p99LatencyMs: { warning: 5000, critical: 30_000 },
  });

export const taskDefinitionSchema = z
  .strictObject({
    name: taskNameSchema,
    description: inputText.max(500).optional(),
    partitions: whole(1, 1024).default(4),
    /** Cluster-wide limit on running executions of this task. */
    concurrency: limit.default(10),
    routing: routingSchema.default({ strategy: 'round-robin' }),
    groups: z.array(groupSchema).max(MAX_GROUPS, `at most ${MAX_GROUPS} groups per task`).default([]),
    stream: z.strictObject({ keyPath: keyPathSchema.optional() }).optional(),
    retry: retrySchema.default({ maxAttempts: 3, backoff: 'exponential', baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.2 }),
    timeoutMs: whole(1, 86_400_000).default(30_000),
    backpressure: backpressureSchema.default({
      maxDepth: 10_000,
      policy: 'reject',
      retryAfterMs: 1000,
      throttleDelayMs: 100,
      throttleMaxDelayMs: 5000,
      shedPercent: 50,
    }),
    dlq: dlqSchema.default({ maxDepth: 100_000, retentionDays: 14 }),
    /** How long this task's finished executions are kept (server/core/retention-policy.ts); absent: SLUICE_RETAIN_*. */
    retention: taskRetentionSchema.optional(),
    thresholds: thresholdsSchema,
    paused: z.boolean().default(false),
  })
  .superRefine((t, ctx) => {
    if (t.routing.strategy === 'hash' && !t.routing.keyPath) {
      ctx.addIssue({ code: 'custom', path: ['routing', 'keyPath'], message: 'hash routing needs a key path' });
    }
    if (t.retry.maxDelayMs < t.retry.baseDelayMs) {
      ctx.addIssue({ code: 'custom', path: ['retry', 'maxDelayMs'], message: 'must be at least baseDelayMs' });
    }
    const seen = new Set<string>();
    t.groups.forEach((g, i) => {
      if (seen.has(g.name)) {
        ctx.addIssue({ code: 'custom', path: ['groups', i, 'name'], message: `group "${g.name}" is declared twice` });
      }
      seen.add(g.name);
    });
  });

export type TaskDefinition = z.output<typeof taskDefinitionSchema>;
export type TaskDefinitionInput = z.input<typeof taskDefinitionSchema>;
export type GroupDefinition = z.output<typeof groupSchema>;

/** The whole configuration: what one config version holds. */
export const sluiceConfigSchema = z
  .strictObject({
    tasks: z.array(taskDefinitionSchema).max(500).default([]),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.tasks.forEach((t, i) => {
      if (seen.has(t.name)) {
        ctx.addIssue({ code: 'custom', path: ['tasks', i, 'name'], message: `task "${t.name}" is declared twice` });
      }
      seen.add(t.name);
    });
  });

export type SluiceConfig = z.output<typeof sluiceConfigSchema>;
export type SluiceConfigInput = z.input<typeof sluiceConfigSchema>;

export type { FieldError };

export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export function parseConfig(input: unknown): ParseResult<SluiceConfig> {
  const r = sluiceConfigSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: issueFieldErrors(r.error.issues) };
}

export function parseTaskDefinition(input: unknown): ParseResult<TaskDefinition> {
  const r = taskDefinitionSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: issueFieldErrors(r.error.issues) };
}

/** The limit a key gets in a group: its override when there is one, else the group's. */
export function effectiveGroupLimit(group: GroupDefinition, key: string): number {
  // Own properties only: a key named "constructor" must not read Object.prototype.
  return Object.hasOwn(group.overrides, key) ? group.overrides[key]! : group.limit;
}
