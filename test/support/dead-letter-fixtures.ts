// Dead letters inserted directly (fast, for browse / purge / bench tests): execution ids
// come from the executions sequence, so they never collide with real executions that a
// replay later creates and that may die again.
import type { Db } from '../../server/db/pool';

export interface DeadLetterSeed {
  task?: string;
  payload?: unknown;
  groups?: Record<string, string>;
  streamKey?: string | null;
  idempotencyKey?: string | null;
  partition?: number;
  attempts?: number;
  error?: string;
  stack?: string | null;
  fingerprint?: string;
  deadAt?: Date | string;
  enqueuedAt?: Date | string;
  /** insert a matching execution row (state dead) and these failed attempts */
  withExecution?: boolean;
}

export async function insertDeadLetters(db: Db, seeds: DeadLetterSeed[]): Promise<{ id: number; executionId: number }[]> {
  if (seeds.length === 0) return [];
  const r = await db.query<{ id: number; executionId: number }>(
    `INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, idempotency_key, partition, attempts,
                               last_error, stack, fingerprint, enqueued_at, dead_at)
     SELECT nextval('executions_id_seq'), t.task, t.payload, t.groups, t.stream_key, t.idem, t.partition, t.attempts,
            t.error, t.stack, t.fingerprint, coalesce(t.enqueued_at, coalesce(t.dead_at, now()) - interval '1 minute'),
            coalesce(t.dead_at, now())
       FROM unnest($1::text[], $2::jsonb[], $3::jsonb[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[],
                   $9::text[], $10::text[], $11::timestamptz[], $12::timestamptz[])
            WITH ORDINALITY AS t(task, payload, groups, stream_key, idem, partition, attempts, error, stack, fingerprint,
                                 enqueued_at, dead_at, ord)
      ORDER BY t.ord
     RETURNING id, execution_id AS "executionId"`,
    [
      seeds.map((s) => s.task ?? 'billing'),
      seeds.map((s) => JSON.stringify(s.payload ?? { n: 1 })),
      seeds.map((s) => JSON.stringify(s.groups ?? {})),
      seeds.map((s) => s.streamKey ?? null),
      seeds.map((s) => s.idempotencyKey ?? null),
      seeds.map((s) => s.partition ?? 0),
      seeds.map((s) => s.attempts ?? 3),
      seeds.map((s) => s.error ?? 'Error: boom'),
      seeds.map((s) => s.stack ?? null),
      seeds.map((s) => s.fingerprint ?? 'f00d'),
      seeds.map((s) => s.enqueuedAt ?? null),
      seeds.map((s) => s.deadAt ?? null),
    ],
  );
  const rows = [...r.rows].sort((a, b) => a.id - b.id);
  const withExec = seeds.map((s, i) => ({ s, row: rows[i]! })).filter((x) => x.s.withExecution);
  if (withExec.length > 0) {
    await db.query(
      `INSERT INTO executions (id, task, partition, state, payload, groups, stream_key, attempts, finished_at, last_error)
       SELECT d.execution_id, d.task, d.partition, 'dead', d.payload, d.groups, d.stream_key, d.attempts, d.dead_at, d.last_error
         FROM dead_letters d WHERE d.id = ANY ($1::bigint[])`,
      [withExec.map((x) => x.row.id)],
    );
    await db.query(
      `INSERT INTO execution_attempts (execution_id, task, attempt, started_at, failed_at, outcome, error, stack, fingerprint)
       SELECT d.execution_id, d.task, a, d.dead_at - make_interval(secs => (d.attempts - a + 1) * 10),
              d.dead_at - make_interval(secs => (d.attempts - a) * 10),
              CASE WHEN a = d.attempts THEN 'dead' ELSE 'retry' END,
              d.last_error || ' (attempt ' || a || ')', d.stack, d.fingerprint
         FROM dead_letters d CROSS JOIN LATERAL generate_series(1, d.attempts) a
        WHERE d.id = ANY ($1::bigint[])`,
      [withExec.map((x) => x.row.id)],
    );
  }
  return rows;
}
