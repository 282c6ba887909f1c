import { describe, expect, it } from 'vitest';
import { orderlyShutdown, type ShutdownSteps } from './shutdown';

function steps(over: Partial<ShutdownSteps> = {}) {
  const order: string[] = [];
  const step = (name: string) => async () => void order.push(name);
  const s: ShutdownSteps = {
    startDraining: () => void order.push('startDraining'),
    drainWatch: { stop: () => void order.push('drainWatch') },
    claimLoop: { stop: step('claimLoop') },
    markDraining: step('markDraining'),
    settleHandlers: step('settleHandlers'),
    cancelWatch: { stop: step('cancelWatch') },
    completer: { idle: step('completerIdle'), close: step('completer') },
    slotFolder: { stop: step('slotFolder') },
    heartbeat: { stop: step('heartbeat') },
    maintenance: { stop: step('maintenance') },
    listener: { stop: step('listener') },
    metricsServer: { close: step('metricsServer') },
    markStopped: step('markStopped'),
    shutdownTracing: step('tracing'),
    closePool: step('pool'),
    log: (m) => void order.push(`log: ${m}`),
    ...over,
  };
  return { s, order };
}

const FULL = [
  'startDraining',
  'drainWatch',
  'claimLoop',
  'completerIdle',
  'markDraining',
  'settleHandlers',
  'cancelWatch',
  'completer',
  'slotFolder',
  'heartbeat',
  'maintenance',
  'listener',
  'metricsServer',
  'markStopped',
  'tracing',
  'pool',
  'log: stopped',
];

describe('orderlyShutdown', () => {
  it('stops claiming first, records the work, and only then stops the heartbeat and closes the pool', async () => {
    const { s, order } = steps();
    const sd = orderlyShutdown(s);
    await sd.stop();
    expect(order).toEqual(FULL);
    await sd.stopped;
  });

  it('runs once however often it is asked; `stopped` resolves for every asker', async () => {
    const { s, order } = steps();
    const sd = orderlyShutdown(s);
    let stoppedSeen = false;
    void sd.stopped.then(() => (stoppedSeen = true));
    const a = sd.stop();
    const b = sd.stop();
    expect(a).toBe(b);
    await Promise.all([a, b, sd.stop()]);
    expect(order.filter((o) => o === 'pool')).toHaveLength(1);
    await Promise.resolve();
    expect(stoppedSeen).toBe(true);
  });

  it('skips what is not there (no maintenance, no /metrics, tracing not owned)', async () => {
    const { s, order } = steps({ maintenance: null, metricsServer: null, shutdownTracing: null });
    await orderlyShutdown(s).stop();
    expect(order).toEqual(FULL.filter((o) => !['maintenance', 'metricsServer', 'tracing'].includes(o)));
  });

  it('a failed drain mark, stop mark or trace export is logged and the stop goes on', async () => {
    const boom = (what: string) => async () => {
      throw new Error(`${what} down`);
    };
    const { s, order } = steps({ markDraining: boom('db'), markStopped: boom('db'), shutdownTracing: boom('collector') });
    await orderlyShutdown(s).stop();
    expect(order).toContain('log: drain mark failed: db down');
    expect(order).toContain('log: stop mark failed: db down');
    expect(order).toContain('log: trace export at stop failed: collector down');
    expect(order.at(-1)).toBe('log: stopped');
    expect(order).toContain('pool');
  });

  it('any other failure rejects stop(), and `stopped` still resolves', async () => {
    const { s, order } = steps({
      completer: {
        idle: async () => {},
        close: async () => {
          throw new Error('disk full');
        },
      },
    });
    const sd = orderlyShutdown(s);
    await expect(sd.stop()).rejects.toThrow('disk full');
    await sd.stopped;
    expect(order).not.toContain('pool');
  });
});
