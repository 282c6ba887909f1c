// Chaos: 3 coordinator processes work through 20k executions with tenant limits and
// ordered streams while one of them is killed -9 at fixed points of progress and replaced
// (test/support/chaos.ts). engine-chaos-pgbouncer.test.ts runs it through PgBouncer.
import { describe, it } from 'vitest';
import { coordinatorTestContext } from '../support/coordinator-harness';
import { runChaos } from '../support/chaos';

const TOTAL = 20_000;
const ctx = coordinatorTestContext();

describe('chaos', () => {
  it(`loses nothing and breaks no limit or order with kill -9 every few seconds (${TOTAL} executions)`, async () => {
    await runChaos(ctx, { total: TOTAL });
  }, 180_000);
});
