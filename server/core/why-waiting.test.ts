import { describe, it, expect } from 'vitest';
import { bindingGroupKey, describeHold, whyWaitingFromRow, type WaitingHold } from './why-waiting';

describe('describeHold', () => {
  it.each<[WaitingHold, string]>([
    [{ reason: 'task_paused', task: 'send-email' }, 'task send-email is paused'],
    [
      { reason: 'circuit_open', task: 'send-email', state: 'open', since: '2026-11-24T10:00:00.000Z', openedAt: '2026-11-24T10:00:00.000Z', why: '12 of 20 executions failed in 60000 ms (threshold 50%)', probesAt: '2026-11-24T10:00:30.000Z' },
      'circuit breaker open since 2026-11-24T10:00:00Z (12 of 20 executions failed in 60000 ms (threshold 50%)); probes from 2026-11-24T10:00:30Z',
    ],
    [
      { reason: 'circuit_open', task: 'send-email', state: 'half-open', since: '2026-11-24T10:00:30.000Z', openedAt: '2026-11-24T10:00:00.000Z', why: 'cool-down of 30000 ms passed', probesAt: null },
      'circuit breaker half-open since 2026-11-24T10:00:30Z: its probes are running (cool-down of 30000 ms passed)',
    ],
    [{ reason: 'task_full', task: 'send-email', inFlight: 40, concurrency: 40 }, 'task limit full: 40/40'],
    [
      { reason: 'fair_share', key: 'tenant=acme', group: 'tenant', groupKey: 'acme', inFlight: 9, weight: 1, share: 3, times: 3 },
      'fair share: acme used 3× its weight (9 running, weight 1, share 3)',
    ],
    [
      { reason: 'fair_share', key: 'tenant=big', group: 'tenant', groupKey: 'big', inFlight: 8, weight: 4, share: 7.5, times: 1.07 },
      'fair share: big used 1.1× its weight (8 running, weight 4, share 7.5)',
    ],
    [
      { reason: 'rate_limited', key: 'tenant=acme', group: 'tenant', groupKey: 'acme', limit: 50, per: 1000, burst: 5, override: false, nextInMs: 1200 },
      'rate limit tenant=acme: next slot in 1.2 s (50/s, burst 5)',
    ],
    [
      { reason: 'rate_limited', key: 'tenant=big', group: 'tenant', groupKey: 'big', limit: 100, per: 60_000, burst: 0, override: true, nextInMs: 80.2 },
      'rate limit tenant=big: next slot in 81 ms (100/min, override)',
    ],
    [{ reason: 'task_rate_limited', task: 'send-email', limit: 7, per: 1500, burst: 0, nextInMs: 2000 }, 'task rate limit: next slot in 2.0 s (7 per 1500 ms)'],
    [{ reason: 'group_full', key: 'tenant=acme', group: 'tenant', groupKey: 'acme', inFlight: 8, limit: 8, override: false }, 'group key tenant=acme is full: 8/8'],
    [{ reason: 'group_full', key: 'tenant=big', group: 'tenant', groupKey: 'big', inFlight: 1200, limit: 1200, override: true }, 'group key tenant=big is full: 1,200/1,200 (override)'],
    [
      { reason: 'stream_head', stream: 'c1', headId: 42, headState: 'queued', headAttempts: 1, headRetryAt: '2026-11-24T10:00:00.000Z', headLeaseExpiresAt: null, headLastError: 'x' },
      'stream c1: head is execution 42 (attempt 2 retries at 2026-11-24T10:00:00Z)',
    ],
    [
      { reason: 'stream_head', stream: 'c1', headId: 42, headState: 'running', headAttempts: 3, headRetryAt: null, headLeaseExpiresAt: '2026-11-24T10:00:00.500Z', headLastError: null },
      'stream c1: head is execution 42 (running, attempt 3, lease until 2026-11-24T10:00:00.500Z)',
    ],
    [{ reason: 'scheduled', until: '2026-11-24T10:00:00Z', kind: 'retry_backoff', attempts: 2 }, 'scheduled until 2026-11-24T10:00:00Z (backoff after attempt 2)'],
    [{ reason: 'scheduled', until: '2026-11-24T10:00:00Z', kind: 'delay', attempts: 0 }, 'scheduled until 2026-11-24T10:00:00Z (delay)'],
    [{ reason: 'no_owner', partition: 3, owner: null, ownerName: null, lastHeartbeatAt: null, ownerStopped: false, ownerDraining: false }, 'partition 3 has no owner'],
    [{ reason: 'no_owner', partition: 3, owner: 'u', ownerName: 'c-1', lastHeartbeatAt: null, ownerStopped: true, ownerDraining: false }, 'partition 3 has no live owner (c-1 stopped)'],
    [{ reason: 'spilled', partition: 1, depth: 10_000, maxDepth: 10_000, spilledAhead: 5 }, 'spilled: partition 1 holds 10,000 of maxDepth 10,000; drained back (oldest first, 5 ahead) once depth falls below it'],
  ])('%j', (hold, text) => {
    expect(describeHold(hold)).toBe(text);
  });
});

describe('whyWaitingFromRow', () => {
  it('names the first hold, or claimable with what is ahead, or not waiting', () => {
    const full = { reason: 'group_full', key: 'tenant=a', group: 'tenant', groupKey: 'a', inFlight: 2, limit: 2, override: false };
    const w = whyWaitingFromRow({ reason: 'group_full', holds: [full, { reason: 'task_full', task: 't', inFlight: 5, concurrency: 5 }] });
    expect(w.text).toBe('group key tenant=a is full: 2/2');
    expect(bindingGroupKey(w)).toBe('tenant=a');
    expect(whyWaitingFromRow({ reason: 'claimable', holds: [], ahead: 1000, aheadCapped: true, partition: 2 }).text).toBe('claimable: next cycle; 1,000+ ahead of it in partition 2');
    expect(whyWaitingFromRow({ reason: 'claimable', holds: [], ahead: 12, partition: 0, priority: 1, aheadHigherPriority: 5 }).text).toBe(
      'claimable: next cycle; 12 ahead of it in partition 0 (5 of higher priority than its 1)',
    );
    expect(whyWaitingFromRow({ reason: 'claimable', holds: [], ahead: 0 }).text).toBe('claimable: next cycle');
    expect(whyWaitingFromRow({ reason: 'not_waiting', holds: [], state: 'dead' }).text).toBe('not waiting: dead');
    expect(bindingGroupKey(whyWaitingFromRow({ reason: 'claimable', holds: [] }))).toBeNull();
    // rate limits (issue #19): a row parked on a key's rate, once its slot has come
    expect(whyWaitingFromRow({ reason: 'set_aside', holds: [], waitingOn: 'rate:tenant=acme' }).text).toBe(
      'claimable once released: parked on the rate of tenant=acme, whose next slot has come (the next claim releases it)',
    );
  });
});
