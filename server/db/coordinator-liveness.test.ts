import { describe, it, expect } from 'vitest';
import { coordinatorLive, coordinatorStatus, DEFAULT_STALE_MS, staleMsOf } from './coordinator-liveness';
import { timingsSchema } from '../core/coordinator-timings';

describe('the one liveness predicate', () => {
  it('falls back to the coordinators’ own default stale threshold', () => {
    expect(DEFAULT_STALE_MS).toBe(timingsSchema.parse({}).staleMs);
    expect(staleMsOf('c')).toBe(`coalesce(c.stale_ms, ${DEFAULT_STALE_MS})`);
  });
  it('judges each row by its own stale_ms on the database clock', () => {
    const live = coordinatorLive('o');
    expect(live).toContain('o.stopped_at IS NULL');
    expect(live).toContain('now() - make_interval(secs => coalesce(o.stale_ms, 10000) / 1000.0)');
    expect(coordinatorStatus('o')).toContain(`WHEN NOT ${live} THEN 'stale'`);
  });
});
