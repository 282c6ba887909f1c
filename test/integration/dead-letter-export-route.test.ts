// The browser's download of a frozen purge set, GET /api/dead-letters/purge-previews/{id}/export
// (session cookie; the operator check is the deadLetters.purgePreview procedure's): the
// JSON lines for an operator, and the one error mapping (server/api/errors.ts) for the
// rest — 401 signed out, 403 a viewer, 404 an unknown preview, 400 a malformed id — as
// plain text naming the problem.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { createUser } from '../../server/services/users';
import { createSession, SESSION_COOKIE } from '../../server/services/sessions';
import { previewPurge } from '../../server/services/dead-letter-purge';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { applyTasks } from '../support/engine-fixtures';
import { insertDeadLetters } from '../support/dead-letter-fixtures';

let db: TestDatabase;
let route: typeof import('../../app/api/dead-letters/purge-previews/[id]/export/route');
const cookie: Record<'operator' | 'viewer', string> = { operator: '', viewer: '' };
let previewId = '';

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  route = await import('../../app/api/dead-letters/purge-previews/[id]/export/route');
  for (const role of ['operator', 'viewer'] as const) {
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: `export-${role}@example.com`, role, password: `export-${role}-pass-1` });
    const { token } = await createSession(db.pool, user.id, { hours: 1, userAgent: 'vitest', ip: '127.0.0.1' });
    cookie[role] = `${SESSION_COOKIE}=${token}`;
  }
  await applyTasks(db.pool, [{ name: 'export-task' }]);
  await insertDeadLetters(db.pool, [
    { task: 'export-task', error: 'Error: one', fingerprint: 'aa01' },
    { task: 'export-task', error: 'Error: two', fingerprint: 'aa02' },
  ]);
  previewId = (await previewPurge(db.pool, SYSTEM_ACTOR, { filter: { task: 'export-task' } })).id!;
});

function get(id: string, headers: Record<string, string> = {}) {
  return route.GET(new Request(`http://127.0.0.1/api/dead-letters/purge-previews/${id}/export`, { headers }), { params: Promise.resolve({ id }) });
}

describe('GET /api/dead-letters/purge-previews/{id}/export', () => {
  it('an operator downloads the frozen set as JSON lines', async () => {
    const res = await get(previewId, { cookie: cookie.operator });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { lastError?: string; task?: string });
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.task === 'export-task')).toBe(true);
  });

  // Ids and cookies are read when each case runs (they exist only after beforeAll).
  const cases: [string, () => string, () => Record<string, string>, number][] = [
    ['signed out', () => previewId, () => ({}), 401],
    ['a viewer', () => previewId, () => ({ cookie: cookie.viewer }), 403],
    ['an unknown preview', () => '00000000-0000-4000-8000-000000000000', () => ({ cookie: cookie.operator }), 404],
    ['a malformed id', () => 'not-a-uuid', () => ({ cookie: cookie.operator }), 400],
  ];
  it.each(cases)('%s: the mapped status, plain text', async (_name, id, headers, status) => {
    const res = await get(id(), headers());
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await res.text()).trim().length).toBeGreaterThan(0);
  });
});
