import { describe, expect, it } from 'vitest';
import { claimedRow, taskDef } from '../../test/support/coordinator-fakes';
import { SlotLedger, type RunningExecution } from './slot-ledger';
import { ExecutionAbort } from './handler-runner';

const def = taskDef({ name: 't' });
const entry = (id: number): RunningExecution => ({ row: claimedRow(id), def, abort: new ExecutionAbort(), done: Promise.resolve() });

describe('SlotLedger', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses %s slots', (slots) => {
    expect(() => new SlotLedger(slots)).toThrow(`slots must be a whole number ≥ 1, got ${slots}`);
  });

  it('counts running executions and reservations as busy; a release frees one slot', () => {
    const l = new SlotLedger(4);
    expect(l.busy()).toBe(0);
    l.add(entry(1));
    l.add(entry(2));
    l.hold(2); // a claim in flight asked for the two free slots
    expect(l.inFlight).toBe(2);
    expect(l.busy()).toBe(4);
    l.hold(-2); // it came back
    expect(l.busy()).toBe(2);
    l.release(1);
    l.release(1); // twice is harmless
    l.release(99); // unknown id too
    expect(l.inFlight).toBe(1);
    expect(l.get(1)).toBeUndefined();
    expect(l.get(2)?.row.leaseToken).toBe('lease-2');
    expect(l.executions().map((e) => e.row.id)).toEqual([2]);
  });
});
