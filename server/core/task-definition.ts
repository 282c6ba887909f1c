// The task definition: the unit of configuration an operator edits and a coordinator
// applies. One zod schema serves the CLI (`sluice config apply`), the REST/tRPC
// inputs and the browser forms, so a field error reads the same everywhere.
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { inputRecord, inputText } from './input-text';
import { taskRetentionSchema } from './retention-policy';
import { issueFieldErrors, type FieldError } from './errors';
import { AGING_MS_MAX, AGING_MS_MIN, DEFAULT_AGING_MS, PRIORITY_MAX } from './priority';
import { CLAIM_ORDERS, WEIGHT_MAX, WEIGHT_MIN } from './fair-share';

// ─── Fleet defaults: the fields a task may inherit (three-level precedence, block at the end) ───
/**
 * Fields of a task that, when the task does not set them, come from the config's fleet
 * `defaults:` (else the built-in default). Threshold pairs inherit as a pair (warning <
 * critical is checked on the pair). Per-key group limits (`groups[].overrides`) are the
 * third level above the task's group limit (effectiveGroupLimit).
 */
export const INHERITABLE_PATHS = [
  'timeoutMs',
  'retry.maxAttempts',
  'retry.backoff',
  'retry.baseDelayMs',
  'retry.maxDelayMs',
  'retry.jitter',
  'thresholds.depth',
  'thresholds.imbalance',
  'thresholds.retryRate',
  'thresholds.dlqRate',
  'thresholds.p99LatencyMs',
] as const;
export type InheritablePath = (typeof INHERITABLE_PATHS)[number];
// ─── end fleet defaults ───

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

// ---- Limits (issue #19): rate limits (the rule: server/core/rate-limit.ts) -------------
/** `limit` executions (cost units) per `per` ms, `burst` more at once when idle. */
export const rateSchema = z.strictObject({
  limit: whole(1, 1_000_000),
  /** The interval in ms (1000 = per second, 60000 = per minute). */
  per: whole(1, 86_400_000),
  burst: whole(0, 1_000_000).default(0),
});
/** A key's rate: any of the fields; the others come from the group's rate. */
export const rateOverrideSchema = z.strictObject({
  limit: whole(1, 1_000_000).optional(),
  per: whole(1, 86_400_000).optional(),
  burst: whole(0, 1_000_000).optional(),
});
/** A group's rate, per key, with per-key overrides (`{ acme: { limit: 100 } }`). */
export const groupRateSchema = rateSchema.extend({
  overrides: inputRecord(z.string().min(1).max(200), rateOverrideSchema).default({}),
});
// ---- end Limits -------------------------------------------------------------------------

export const groupSchema = z.strictObject({
  name: inputText.regex(GROUP_NAME_RE, 'lowercase letters, digits, "_" or "-", starting with a letter'),
  limit,
  /** Where the key comes from when the producer does not pass it explicitly. */
  keyPath: keyPathSchema.optional(),
  /** Per-key limits that win over `limit`, e.g. `{ acme: 50 }`. */
  overrides: inputRecord(z.string().min(1).max(200), limit).default({}),
  /** Limits (issue #19): per-key weights for a task with `order: 'fair'`, e.g. `{ acme: 3 }`; absent keys weigh 1. */
  weights: inputRecord(z.string().min(1).max(200), whole(WEIGHT_MIN, WEIGHT_MAX)).optional(),
  /** Per-key policies (the third precedence level, block "Per-key policies" below):
   *  a key's own retry fields and wait lines, e.g. `{ acme: { retry: { maxAttempts: 8 } } }`. */
  keyPolicies: inputRecord(z.string().min(1).max(200), z.lazy(() => keyPolicySchema)).optional(),
  /** Limits (issue #19): a rate per key of this group; absent = none. */
  rate: groupRateSchema.optional(),
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

// ─── Protect (issue 23): staged backpressure and the circuit breaker ─────────────────────
// Kept in one block so parallel edits of this file merge cleanly.

/**
 * Staged backpressure (seed 000 "Backpressure Handling"; core/backpressure-stages.ts):
 * from throttleAtPercent of maxDepth arrivals are accepted but delayed (throttleDelayMs per
 * execution past that line, capped by throttleMaxDelayMs) and the producer is told
 * retryAfterMs; from policyAtPercent the task's policy (reject / shed / spill / throttle)
 * applies to what is past that line. Absent: one stage, the policy at maxDepth.
 */
export const backpressureStagesSchema = z
  .strictObject({
    throttleAtPercent: number(1, 100).default(80),
    policyAtPercent: number(1, 100).default(95),
  })
  .refine((s) => s.throttleAtPercent < s.policyAtPercent, { message: 'must be below policyAtPercent', path: ['throttleAtPercent'] });

/**
 * A circuit breaker per task (seed 000's hardening list; core/circuit-breaker.ts): when at
 * least `minCalls` executions finished within `windowMs` and `failureRate` of them failed
 * or timed out, coordinators stop claiming the task for `coolDownMs` (queued executions
 * wait; no attempt is used), then let `probes` executions through: all succeed → closed,
 * any fails → open again. Off unless enabled: an open breaker stops the task's work, which
 * an operator should opt into per task.
 */
export const circuitBreakerSchema = z.strictObject({
  enabled: z.boolean().default(false),
  windowMs: whole(1000, 3_600_000).default(60_000),
  /** A fraction: 0.5 = trip when half of the window's executions failed. */
  failureRate: number(0.01, 1).default(0.5),
  minCalls: whole(1, 1_000_000).default(20),
  coolDownMs: whole(100, 86_400_000).default(30_000),
  probes: whole(1, 1000).default(3),
});
export const DEFAULT_CIRCUIT_BREAKER = { enabled: false, windowMs: 60_000, failureRate: 0.5, minCalls: 20, coolDownMs: 30_000, probes: 3 } as const;
export type CircuitBreakerSettings = z.output<typeof circuitBreakerSchema>;

// ─── end of the Protect block ──────────────────────────────────────────────────────────

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
  /** Staged backpressure (issue 23, the Protect block above); absent = one stage at maxDepth. */
  stages: backpressureStagesSchema.optional(),
});

export const dlqSchema = z.strictObject({
  maxDepth: whole(1, 100_000_000).default(100_000),
  retentionDays: whole(1, 3650).default(14),
});

/** A warning/critical pair; `max` bounds rates (fractions: 1 = 100%). */
/** A warning/critical pair without a default (the fleet defaults' form of a threshold). */
const thresholdLines = (max?: { value: number; message: string }) => {
  const line = max
    ? z.number({ error: 'must be a number' }).min(0, 'must be at least 0').max(max.value, max.message)
    : z.number({ error: 'must be a number' }).min(0, 'must be at least 0');
  return z
    .strictObject({ warning: line, critical: line })
    .refine((t) => t.warning < t.critical, { message: 'warning must be below critical', path: ['warning'] });
};
const thresholdPair = (warning: number, critical: number, max?: { value: number; message: string }) =>
  thresholdLines(max).default({ warning, critical });
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
    // Task-level alert policy (absent = the fleet `defaults.alertPolicy`, else built-in;
    // server/core/fleet-defaults.ts taskAlertPolicy):
    /** Clear this long before the task's alerts resolve on their own. */
    clearAfterMs: z
      .number({ error: 'must be a number' })
      .int('must be a whole number of ms')
      .min(0, 'must be at least 0')
      .max(MAX_ALERT_AFTER_MS, 'must be at most an hour (3600000 ms)')
      .optional(),
    /** Fraction a value must fall below a line, once its alert is open, to count as clear. */
    hysteresis: number(0, 0.9).optional(),
    /** p99 wait (ready → claimed) lines; absent = the fleet's, else 30 s / 5 min. */
    waitP99Ms: thresholdLines().optional(),
    /** Key-wait lines for every group key without its own (keyPolicies[key].waitMs): the
     *  key's oldest due execution; absent = the fleet's alertPolicy.keyWaitMs, else none. */
    keyWaitMs: thresholdLines().optional(),
  })
  .default({
    depth: { warning: 1000, critical: 5000 },
    imbalance: { warning: 2, critical: 5 },
    retryRate: { warning: 0.1, critical: 0.25 },
    dlqRate: { warning: 0.01, critical: 0.05 },
    p99LatencyMs: { warning: 5000, critical: 30_000 },
  });

// ---- Limits (issue #19): priorities ---------------------------------------------------
/** A priority: a whole number from 0 (lowest) to PRIORITY_MAX, higher claimed first. */
export const prioritySchema = whole(0, PRIORITY_MAX);
/** The task's priorities: the default of an execution enqueued without one, and the aging
 *  parameter (waiting time worth one level; the rule is server/core/priority.ts). Absent:
 *  default 0, agingMs 60 s. */
export const taskPrioritySchema = z.strictObject({
  default: prioritySchema.default(0),
  agingMs: whole(AGING_MS_MIN, AGING_MS_MAX).default(DEFAULT_AGING_MS),
});
// ---- end Limits -------------------------------------------------------------------------

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
    // Limits (issue #19)
    priority: taskPrioritySchema.optional(),
    /** Who goes first among what the limits allow: 'fifo' (claim order; absent = fifo) or
     *  'fair' (weighted fair share across the keys of `fairGroup`; server/core/fair-share.ts). */
    order: z.enum(CLAIM_ORDERS, { error: 'must be "fifo" or "fair"' }).optional(),
    /** The group whose keys share the task fairly (absent: the task's first group). */
    fairGroup: inputText.optional(),
    /** Rate limit of the whole task, cluster-wide; absent = none. */
    rate: rateSchema.optional(),
    /** Payload path of an execution's cost for every rate limit of the task (a number ≥ 0; else 1). */
    rateCostPath: keyPathSchema.optional(),
    /** Issue 23 (the Protect block above). */
    circuitBreaker: circuitBreakerSchema.default(DEFAULT_CIRCUIT_BREAKER),
    // ─── Fleet defaults (three-level precedence, see the block at the end) ───
    /** The fields this task takes from the fleet `defaults:` (absent = none). */
    inherited: z.array(z.enum(INHERITABLE_PATHS)).max(64).optional(),
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
      // A key's retry delays as they take effect: its own fields over the task's.
      for (const [key, p] of Object.entries(g.keyPolicies ?? {})) {
        const base = p.retry?.baseDelayMs ?? t.retry.baseDelayMs;
        const max = p.retry?.maxDelayMs ?? t.retry.maxDelayMs;
        if (p.retry && max < base) {
          ctx.addIssue({ code: 'custom', path: ['groups', i, 'keyPolicies', key, 'retry', 'maxDelayMs'], message: `must be at least baseDelayMs (${base})` });
        }
      }
    });
    // Limits (issue #19): fair share needs a group to share by
    if (t.order === 'fair' && t.groups.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['order'], message: 'fair share needs a concurrency group whose keys share the task' });
    }
    if (t.fairGroup !== undefined && !t.groups.some((g) => g.name === t.fairGroup)) {
      ctx.addIssue({ code: 'custom', path: ['fairGroup'], message: `no group "${t.fairGroup}" in this task` });
    }
  });

export type TaskDefinition = z.output<typeof taskDefinitionSchema>;
export type TaskDefinitionInput = z.input<typeof taskDefinitionSchema>;
export type GroupDefinition = z.output<typeof groupSchema>;

/** The whole configuration: what one config version holds. */
export const sluiceConfigSchema = z
  .strictObject({
    /** Fleet-wide defaults every task inherits unless it sets the field (block at the end). */
    defaults: z.lazy(() => fleetDefaultsSchema).optional(),
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
  const r = sluiceConfigSchema.safeParse(inheritDefaults(input));
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: issueFieldErrors(r.error.issues) };
}

export function parseTaskDefinition(input: unknown): ParseResult<TaskDefinition> {
  const r = taskDefinitionSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: issueFieldErrors(r.error.issues) };
}

/** Limits (issue #19): the group a task with `order: 'fair'` shares by (its fairGroup, else its first group); null = fifo. */
export function fairShareGroup(def: Pick<TaskDefinition, 'order' | 'fairGroup' | 'groups'>): string | null {
  if (def.order !== 'fair') return null;
  return def.fairGroup ?? def.groups[0]?.name ?? null;
}

/** The limit a key gets in a group: its override when there is one, else the group's. */
export function effectiveGroupLimit(group: GroupDefinition, key: string): number {
  // Own properties only: a key named "constructor" must not read Object.prototype.
  return Object.hasOwn(group.overrides, key) ? group.overrides[key]! : group.limit;
}

// ─── Fleet defaults (three-level precedence: built-in < fleet `defaults:` < task < per-key) ───
// The config document holds `defaults:` beside `tasks:`. A task field listed in
// INHERITABLE_PATHS that the task does not set (absent in its input, or named in its
// `inherited` list) takes the fleet default, else the built-in one; the parsed task
// carries the resolved value (every reader — engine, alert evaluator, presenters — reads
// effective values) and the list of paths it inherited, so the next parse (a later
// version with other defaults) resolves them again. Alert policy lives only here: the
// evaluator reads it through server/core/fleet-defaults.ts (alertPolicyOf).

const optionalPair = (max?: { value: number; message: string }) => thresholdLines(max).optional();
const retryField = <K extends keyof typeof retrySchema.shape>(k: K) => retrySchema.shape[k].unwrap().optional();

export const fleetAlertPolicySchema = z.strictObject({
  /** For-duration: breaching this long before an alert fires (a task's thresholds.alertAfterMs wins). */
  forMs: whole(0, MAX_ALERT_AFTER_MS).optional(),
  /** Clear this long before an alert resolves on its own. */
  clearForMs: whole(0, MAX_ALERT_AFTER_MS).optional(),
  /** Fraction a value must fall below a line, once open, to count as clear. */
  hysteresis: number(0, 0.9).optional(),
  hotPartition: z
    .strictObject({ factor: number(1, 1000).optional(), floorDepth: whole(0, 100_000_000).optional() })
    .optional(),
  hotKey: z
    .strictObject({ dominantShare: number(0.01, 1).optional(), floor: whole(0, 100_000_000).optional() })
    .optional(),
  /** p99 wait (ready → claimed) lines every task inherits unless it sets thresholds.waitP99Ms. */
  waitP99Ms: optionalPair(),
  /** Key-wait lines for every key of every task without its own or its task's (absent: none). */
  keyWaitMs: optionalPair(),
});

// ─── Per-key policies (the third level: fleet `defaults:` < task < per-key) ───
// A group key may carry its own retry fields (the coordinator retries an execution that
// carries the key under them: core/fleet-defaults.ts retryPolicyForKeys) and its own
// wait lines (the alert evaluator judges the key's oldest due execution against them: rule
// keyWait). A field the key does not set comes from the task (which has it from the fleet
// defaults or the built-in). Most specific scope wins, field by field (seed 003's
// asset > campaign > account precedence, resolved per field rather than per document so a
// key that only raises maxAttempts keeps the task's backoff).
export const keyPolicySchema = z.strictObject({
  retry: z
    .strictObject({
      maxAttempts: retrySchema.shape.maxAttempts.unwrap().optional(),
      backoff: retrySchema.shape.backoff.unwrap().optional(),
      baseDelayMs: retrySchema.shape.baseDelayMs.unwrap().optional(),
      maxDelayMs: retrySchema.shape.maxDelayMs.unwrap().optional(),
      jitter: retrySchema.shape.jitter.unwrap().optional(),
    })
    .optional(),
  /** The key's oldest due, queued execution waiting longer than these lines raises keyWait
   *  (absent: the task's thresholds.keyWaitMs, else the fleet's alertPolicy.keyWaitMs). */
  waitMs: thresholdLines().optional(),
  /** The handler timeout of an execution carrying this key (absent: the task's timeoutMs;
   *  core/fleet-defaults.ts timeoutForKeys). */
  timeoutMs: whole(1, 86_400_000).optional(),
  // The key's alert policy for the rules judged per key (keyWait, hotKey); each absent field
  // comes from the task (thresholds.alertAfterMs / clearAfterMs / hysteresis), else the fleet.
  /** For-duration of the key's alerts. */
  alertAfterMs: whole(0, MAX_ALERT_AFTER_MS).optional(),
  /** Clear-duration of the key's alerts. */
  clearAfterMs: whole(0, MAX_ALERT_AFTER_MS).optional(),
  /** Hysteresis of the key's alerts. */
  hysteresis: number(0, 0.9).optional(),
});
export type KeyPolicy = z.output<typeof keyPolicySchema>;
// ─── end per-key policies ───

export const fleetDefaultsSchema = z
  .strictObject({
    timeoutMs: whole(1, 86_400_000).optional(),
    retry: z
      .strictObject({
        maxAttempts: retryField('maxAttempts'),
        backoff: retryField('backoff'),
        baseDelayMs: retryField('baseDelayMs'),
        maxDelayMs: retryField('maxDelayMs'),
        jitter: retryField('jitter'),
      })
      .optional(),
    thresholds: z
      .strictObject({
        depth: optionalPair(),
        imbalance: optionalPair(),
        retryRate: optionalPair(RATE_MAX),
        dlqRate: optionalPair(RATE_MAX),
        p99LatencyMs: optionalPair(),
      })
      .optional(),
    alertPolicy: fleetAlertPolicySchema.optional(),
  })
  .superRefine((d, ctx) => {
    const r = d.retry;
    if (r?.baseDelayMs !== undefined && r.maxDelayMs !== undefined && r.maxDelayMs < r.baseDelayMs) {
      ctx.addIssue({ code: 'custom', path: ['retry', 'maxDelayMs'], message: 'must be at least baseDelayMs' });
    }
  });

export type FleetDefaults = z.output<typeof fleetDefaultsSchema>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readPath(o: unknown, path: string): unknown {
  let cur: unknown = o;
  for (const part of path.split('.')) {
    if (!isRecord(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** A copy of `o` with `path` set (`undefined` removes it); parents are created as plain objects. */
function writePath(o: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  const out = { ...o };
  if (rest.length === 0) {
    if (value === undefined) delete out[head!];
    else out[head!] = value;
    return out;
  }
  const child = isRecord(out[head!]) ? (out[head!] as Record<string, unknown>) : {};
  out[head!] = writePath(child, rest.join('.'), value);
  return out;
}

/** The paths a raw task leaves to the defaults: absent, or named in its `inherited` list. */
export function inheritedPaths(rawTask: Record<string, unknown>): InheritablePath[] {
  const listed = Array.isArray(rawTask.inherited) ? rawTask.inherited : [];
  return INHERITABLE_PATHS.filter((p) => listed.includes(p) || readPath(rawTask, p) === undefined);
}

/**
 * The raw config with each task's inherited fields filled from the raw `defaults:` (or
 * removed, so the task schema's built-in default applies) and its `inherited` list
 * written. Invalid shapes pass through untouched for the schema to report.
 */
export function inheritDefaults(input: unknown): unknown {
  if (!isRecord(input) || !Array.isArray(input.tasks)) return input;
  const defaults = isRecord(input.defaults) ? input.defaults : {};
  const tasks = input.tasks.map((t: unknown) => {
    if (!isRecord(t)) return t;
    const paths = inheritedPaths(t);
    let out: Record<string, unknown> = { ...t };
    for (const p of paths) out = writePath(out, p, readPath(defaults, p));
    // Entries that name no inheritable field stay, so the schema rejects them by path.
    const unknown = Array.isArray(t.inherited) ? t.inherited.filter((x) => !(INHERITABLE_PATHS as readonly unknown[]).includes(x)) : [];
    if (paths.length + unknown.length > 0) out.inherited = [...paths, ...unknown];
    else delete out.inherited;
    return out;
  });
  return { ...input, tasks };
}

/**
 * A task edited on its own (the editor's save): its `inherited` list written from its
 * raw input, so fields it leaves out stay inherited when the whole config is parsed.
 */
export function markInherited(rawTask: unknown): unknown {
  if (!isRecord(rawTask)) return rawTask;
  return (inheritDefaults({ tasks: [rawTask] }) as { tasks: unknown[] }).tasks[0];
}
// ─── end fleet defaults ───
