// Finished executions per minute of a few keys of one task group: the last complete
// minute before the key-finishes cursor (db/record-key-finishes.ts), read by primary key
// of group_key_finishes. `minute` is null before the recorder has run once.
import type { Db } from './pool';

export interface KeyFinishRates {
  minute: Date | null;
  rows: { group_key: string; finished: number }[];
}

export async function readKeyFinishRates(db: Db, task: string, group: string, keys: readonly string[]): Promise<KeyFinishRates> {
  const r = await db.query<{ minute: Date | null; rows: { group_key: string; finished: number }[] | null }>(
    `WITH m AS (
       SELECT date_trunc('minute', scanned_until) - interval '1 minute' AS minute FROM group_key_finish_cursor WHERE id = 1
     )
     SELECT (SELECT minute FROM m) AS minute,
            (SELECT json_agg(json_build_object('group_key', f.group_key, 'finished', f.finished))
             FROM group_key_finishes f, m
             WHERE f.task = $1 AND f.group_name = $2 AND f.group_key = ANY ($3::text[]) AND f.minute = m.minute) AS rows`,
    [task, group, keys],
  );
  const row = r.rows[0];
  return { minute: row?.minute ?? null, rows: row?.rows ?? [] };
}
