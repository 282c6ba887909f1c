// tasks.whatIf: the preview's procedure refuses bad input with a 4xx naming the field,
// refuses viewers, says why it cannot predict (unknown task, no live coordinator), and
// never writes anything.
import { describe, it, expect, beforeAll } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import fc from 'fast-check';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { testDatabase, type TestDatabase } from './db';
import { callerAs } from '../support/trpc-caller';
import { applyTasks } from '../support/engine-fixtures';
import { changedTables, databaseFingerprint } from '../support/hostile-input';
import { registerCoordinator } from '../../server/db/coordinator-membership';
import type { SessionUser } from '../../server/services/sessions';

const operator: SessionUser = { id: '00000000-0000-0000-0000-000000000001', email: 'op@example.com', role: 'operator' };
const viewer: SessionUser = { id: '00000000-0000-0000-0000-000000000002', email: 'viewer@example.com', role: 'viewer' };
const task = { name: 'wi', partitions: 2, concurrency: 4, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }] };

async function failure(p: Promise<unknown>): Promise<TRPCError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(TRPCError);
  return e as TRPCError;
}

describe('tasks.whatIf', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
    await applyTasks(db.pool, [task]);
  });

  it('names the field of a bad input, refuses viewers, explains what it lacks; writes nothing', async () => {
    const before = await databaseFingerprint(db.pool);
    const op = callerAs(db.pool, operator);
    const bad = await failure(op.tasks.whatIf({ task, windowHours: -1 }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toMatch(/windowHours/);
    const badDef = await failure(op.tasks.whatIf({ task: { ...task, concurrency: 0 } }));
    expect(badDef.code).toBe('BAD_REQUEST');
    expect(badDef.message).toMatch(/concurrency/);
    expect((await failure(op.tasks.whatIf({ task: { ...task, name: 'nope' } }))).code).toBe('NOT_FOUND');
    const noMember = await failure(op.tasks.whatIf({ task }));
    expect(noMember.code).toBe('PRECONDITION_FAILED');
    expect(noMember.message).toMatch(/no live coordinator serves "wi"/);
    expect((await failure(callerAs(db.pool, viewer).tasks.whatIf({ task }))).code).toBe('FORBIDDEN');
    await fc.assert(
      fc.asyncProperty(fc.anything({ withDate: true, withMap: true, withBigInt: true }), async (input) => {
        const e = await op.tasks.whatIf(input as never).then(
          () => null,
          (x: unknown) => x,
        );
        if (e === null) return;
        const status = getHTTPStatusCodeFromError(e as TRPCError);
        expect(status >= 400 && status < 500, `${(e as TRPCError).code}: ${(e as Error).message}`).toBe(true);
      }),
      { numRuns: 60 },
    );
    expect(changedTables(before, await databaseFingerprint(db.pool))).toEqual([]);
  });

  it('with a live member and no recorded traffic: a prediction that says it has too little data', async () => {
    const me = await registerCoordinator(db.pool, { name: 'wi-1', host: 'test', pid: 1, tasks: ['wi'], slots: 8, metricsPort: null });
    // Its heartbeat set ahead: it stays live for this test and the CLI's below (no process runs).
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() + interval '1 hour' WHERE id = $1`, [me]);
    const r = await callerAs(db.pool, operator).tasks.whatIf({ task: { ...task, concurrency: 2 } });
    expect(r.coverage).toMatchObject({ executions: 0, measured: 0, tooLittle: true });
    expect(r.coverage.note).toMatch(/too little data/);
    expect(r.coordinators).toEqual({ count: 1, slots: [8] });
    expect(r.today.throughputPerS).toBe(0);
    expect(r.keys).toEqual([]);
  });

  it('sluice config diff --what-if prints the prediction per changed task (after the diff); a bad --what-if is refused', async () => {
    const root = path.resolve(import.meta.dirname, '..', '..');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-whatif-')), 'edited.yaml');
    fs.writeFileSync(file, stringify({ tasks: [{ ...task, concurrency: 1 }] }));
    const sluice = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [path.join(root, 'bin', 'sluice.js'), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: db.url } }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const r = await sluice(['config', 'diff', file, '--what-if', '0.5']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('wi: concurrency 4 → 1');
    expect(r.stdout).toMatch(/what-if for wi \(1 coordinator\(s\), 8 slots\): 0 executions in the last 30 min.*too little data/);
    expect(r.stdout).toMatch(/wait p99 +– +→ +–/);
    const bad = await sluice(['config', 'diff', file, '--what-if', 'soon']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--what-if takes a number of hours');
  }, 60_000);
});
