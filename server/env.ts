// The control plane's and the CLI's environment variables, in one zod schema.
// next.config.js imports this module, so a bad value fails the build; the CLI parses it
// at start-up and stops with a message that names the variable. Read elsewhere, each
// validated where it is read:
//   SLUICE_HEARTBEAT_MS, SLUICE_STALE_MS, SLUICE_LEASE_GRACE_MS, SLUICE_POLL_MS,
//   SLUICE_CONFIG_POLL_MS, SLUICE_SHUTDOWN_GRACE_MS, SLUICE_FLUSH_MS,
//   SLUICE_SLOT_FOLD_MS,
//   SLUICE_MAINTENANCE_SCALE  coordinator timings (server/core/coordinator-timings.ts;
//                             a bad value stops the coordinator, naming the variable);
//   SLUICE_CONTROL_PLANE_SERVICES=0  no background jobs in this server (server/control-plane/start.ts);
//   NEXT_DIST_DIR             build output folder, for parallel builds (next.config.js);
//   OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL,
//   OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
//   OTEL_TRACES_SAMPLER, OTEL_BSP_*, other OTEL_EXPORTER_OTLP_*
//                             tracing, the OpenTelemetry names (server/core/tracing-settings.ts,
//                             docs/tracing.md);
//   SLUICE_SKIP_PEERS=1       npm install skips the benchmark peers (scripts/install-peers.mjs);
//   PRISMA_SCHEMA_ENGINE_BINARY  for `prisma generate` (scripts/prisma-generate.mjs).
// server/env.test.ts checks that every SLUICE_* / OTEL_* / DATABASE_* name the code reads
// is named in this file.
import { z } from 'zod';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './core/input-text';
import { parseAllowList } from './core/webhook-address';
import { retentionSettingsSchema } from './core/retention-policy';

const port = z.coerce.number().int().min(1).max(65535);
const bool = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
    /** Postgres to use. Unset: the embedded server under SLUICE_DATA_DIR is started. */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    /** The same Postgres without a transaction pooler in between, when DATABASE_URL goes
     *  through one (PgBouncer in transaction mode): LISTEN and migrations use it. */
    DATABASE_DIRECT_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    /** A streaming replica of DATABASE_URL's database. Set: the console's read-mostly
     *  pages (Overview cards and charts, executions and dead-letter lists, audit) read from
     *  it; writes and reads after an action stay on DATABASE_URL. server/db/pool.ts. */
    DATABASE_REPLICA_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    PORT: port.default(3000),
    HOST: z.string().default('127.0.0.1'),
    /** Where the embedded Postgres keeps its data and where builds keep their stamp. */
    SLUICE_DATA_DIR: z.string().default('.sluice'),
    SLUICE_EMBEDDED_PG_PORT: port.default(54329),
    /** Only as root: where the embedded Postgres's binaries and data go when the `postgres`
     *  user cannot reach the checkout (e.g. a clone in /root, mode 700). */
    SLUICE_EMBEDDED_PG_HOME: z.string().startsWith('/', 'must be an absolute path').default('/var/lib/sluice'),
    SLUICE_ADMIN_EMAIL: z.string().email('must be an email address').default('admin@sluice.local'),
    SLUICE_ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
    /** Session lifetime in hours. */
    SLUICE_SESSION_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 7),
    /** Reverse proxies in front of the control plane whose X-Forwarded-For entries are
     *  believed (0: the client is the TCP peer). See server/core/client-address.ts. */
    SLUICE_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
    /** The address browsers use for the control plane (scheme, host, port), e.g.
     *  https://sluice.example.com. Mutations are accepted only from this origin (unset: from
     *  the origin the request was addressed to); https here turns Secure cookies and HSTS on. */
    SLUICE_PUBLIC_URL: z
      .string()
      .url('must be a URL like https://sluice.example.com')
      .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')
      .optional(),
    /** Mark session cookies Secure and send HSTS (served over HTTPS). Default: on when
     *  SLUICE_PUBLIC_URL is https, else off. */
    SLUICE_SECURE_COOKIES: bool.optional(),
    /** Largest request body the control plane reads, in bytes; larger ones get 413 before
     *  anything parses them. */
    SLUICE_MAX_BODY_BYTES: z.coerce.number().int().min(1024, 'must be at least 1024').max(64 * 1024 * 1024, 'must be at most 67108864 (64 MB)').default(1024 * 1024),
    /** Start demo coordinators and producers with `npm start`. */
    SLUICE_DEMO: bool.default(true),
    /** Handlers module for the coordinators `npm start` runs when the demo is off. */
    SLUICE_HANDLERS: z.string().optional(),
    /** Coordinators `npm start` runs beside the control plane (0 = none). */
    SLUICE_COORDINATORS: z.coerce.number().int().min(0).max(32).default(3),
    /** When the demo producer's first hot-partition episode starts, in ms after it starts. */
    SLUICE_DEMO_EPISODE_START_MS: z.coerce.number().int().min(0).optional(),
    /** Largest execution payload accepted (serialized JSON, bytes); larger ones answer 400 naming the field. */
    SLUICE_MAX_PAYLOAD_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(DEFAULT_MAX_PAYLOAD_BYTES),
    /** Internal hosts, addresses and CIDRs webhooks may target (comma-separated); others must be public. */
    SLUICE_WEBHOOK_ALLOW_HOSTS: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        try {
          parseAllowList(v);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: (e as Error).message });
        }
      }),
    /** When set, /metrics (control plane and coordinators) answers only `Authorization: Bearer <token>`. */
    // Retention (server/core/retention-policy.ts, which the coordinators read the same way).
    SLUICE_IDEMPOTENCY_WINDOW_HOURS: retentionSettingsSchema.shape.idempotencyWindowHours,
    SLUICE_RETAIN_SUCCEEDED_HOURS: retentionSettingsSchema.shape.succeededHours,
    SLUICE_RETAIN_CANCELED_HOURS: retentionSettingsSchema.shape.canceledHours,
    SLUICE_RETAIN_HISTORY_DAYS: retentionSettingsSchema.shape.historyDays,
    SLUICE_RETAIN_AUDIT_DAYS: retentionSettingsSchema.shape.auditDays,
    SLUICE_RETENTION_BATCH: retentionSettingsSchema.shape.batch,
    SLUICE_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  })
  .transform((e) => ({ ...e, SLUICE_SECURE_COOKIES: e.SLUICE_SECURE_COOKIES ?? e.SLUICE_PUBLIC_URL?.startsWith('https:') ?? false }));

export type Env = z.output<typeof envSchema>;

export class EnvError extends Error {
  constructor(public readonly problems: { name: string; message: string }[]) {
    super(
      'Invalid environment:\n' + problems.map((p) => `  ${p.name}: ${p.message}`).join('\n'),
    );
    this.name = 'EnvError';
  }
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Treat empty strings as unset: `FOO= npm start` means "no FOO".
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const r = envSchema.safeParse(cleaned);
  if (!r.success) {
    throw new EnvError(r.error.issues.map((i) => ({ name: i.path.join('.'), message: i.message })));
  }
  return r.data;
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
