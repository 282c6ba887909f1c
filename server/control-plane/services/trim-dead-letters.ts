// Control-plane service: each task's DLQ limits (dlq.maxDepth, dlq.retentionDays) — the
// oldest dead letters beyond them are deleted, counted and recorded (services/dead-letter-trim.ts).
import type { ControlPlaneService } from '../service';
import { trimDeadLetters } from '../../services/dead-letter-trim';

export const trimDeadLettersService: ControlPlaneService = {
  name: 'trim-dead-letters',
  intervalMs: 60_000,
  mode: 'steps',
  async run(ctx) {
    const s = await trimDeadLetters(ctx.pool);
    for (const e of s.events) ctx.log(`[dlq] trimmed ${e.removed} dead letter(s) of ${e.task} beyond ${e.kind === 'retention' ? `${e.limit} days` : `${e.limit} entries`}`);
    return s;
  },
};
