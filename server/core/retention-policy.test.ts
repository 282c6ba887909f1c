import { describe, it, expect } from 'vitest';
import { executionCutoffs, resolveRetention, taskRetentionSchema } from './retention-policy';

describe('resolveRetention', () => {
  it('defaults: 24 h window and succeeded, 7 days canceled, 14 days history, 400 days audit, batches of 1000', () => {
    expect(resolveRetention({}, {})).toEqual({ idempotencyWindowHours: 24, succeededHours: 24, canceledHours: 168, historyDays: 14, auditDays: 400, batch: 1000 });
  });
  it('env overrides defaults, explicit values override env; fractions of hours are allowed', () => {
    const s = resolveRetention({ succeededHours: 2 }, { SLUICE_RETAIN_SUCCEEDED_HOURS: '5', SLUICE_IDEMPOTENCY_WINDOW_HOURS: '0.5', SLUICE_RETENTION_BATCH: '' });
    expect(s).toMatchObject({ succeededHours: 2, idempotencyWindowHours: 0.5, batch: 1000 });
  });
  it.each([
    [{ SLUICE_RETAIN_AUDIT_DAYS: '0' }, /^SLUICE_RETAIN_AUDIT_DAYS: must be a positive number of days/],
    [{ SLUICE_IDEMPOTENCY_WINDOW_HOURS: 'soon' }, /^SLUICE_IDEMPOTENCY_WINDOW_HOURS: /],
    [{ SLUICE_RETENTION_BATCH: '1.5' }, /^SLUICE_RETENTION_BATCH: /],
  ])('a bad value names its variable: %j', (env, msg) => {
    expect(() => resolveRetention({}, env)).toThrow(msg);
  });
});

describe('executionCutoffs', () => {
  const s = resolveRetention({}, {});
  it('the task section wins over the settings; the window is the same for every task', () => {
    expect(executionCutoffs(s, null)).toEqual({ succeededMs: 86_400_000, canceledMs: 7 * 86_400_000, windowMs: 86_400_000 });
    expect(executionCutoffs(s, { succeededHours: 1 })).toEqual({ succeededMs: 3_600_000, canceledMs: 7 * 86_400_000, windowMs: 86_400_000 });
  });
  it('a task retention must be a positive number of hours', () => {
    expect(taskRetentionSchema.safeParse({ succeededHours: 0 }).success).toBe(false);
    expect(taskRetentionSchema.safeParse({ keepForever: true }).success).toBe(false);
    expect(taskRetentionSchema.parse({ canceledHours: 0.25 })).toEqual({ canceledHours: 0.25 });
  });
});

describe('overlayEnv (shared with coordinator timings)', () => {
  it('explicit beats env beats absent; empty env is unset', async () => {
    const { overlayEnv } = await import('./env-overlay');
    expect(overlayEnv<'a' | 'b' | 'c'>({ a: 1 }, { A: '2', B: '3', C: '' }, { a: 'A', b: 'B', c: 'C' })).toEqual({ a: 1, b: '3' });
  });
});
