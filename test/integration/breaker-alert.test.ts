// An opening circuit breaker end to end (issue 23): the coordinators' own write trips it
// (breaker-store recordBreakerOutcomes), the alert evaluator's next run raises a critical
// circuitOpen alert with the breaker's reason as evidence, the Overview shows the breaker on
// the task's card and counts it in the fleet strip; half-open keeps the alert open; the
// probes closing it resolve the alert on the next run and the Overview clears. The fleet
// strip's "Alerts firing" counts fleet-wide alerts (task '') beside the cards' (issue 17).
import { describe, expect, it, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { admitProbes, recordBreakerOutcomes } from '../../server/coordinator/breaker-store';
import { evaluateAlerts } from '../../server/services/alerts';
import { getOverview, overviewInput } from '../../server/presenters/overview';

let db: TestDatabase;
const settings = { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 300, probes: 1 };
const circuitAlerts = async () =>
  (
    await db.pool.query<{ task: string; status: string; severity: string; evidence: { state: string; reason?: string } }>(
      `SELECT task, status, severity, evidence FROM alerts WHERE rule = 'circuitOpen' ORDER BY id`,
    )
  ).rows;
const overview = () => getOverview(db.pool, overviewInput.parse({}));

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'flaky', partitions: 1, circuitBreaker: settings },
    { name: 'steady', partitions: 1 },
  ]);
});

describe('circuitOpen alert, end to end', () => {
  it('fires when the breaker opens, stays while half-open, resolves when the probes close it', async () => {
    await evaluateAlerts(db.pool, new Date());
    expect(await circuitAlerts()).toEqual([]);
    expect((await overview()).fleet.breakersOpen).toBe(0);

    const trip = await recordBreakerOutcomes(db.pool, 'flaky', settings, { ok: 1, failed: 5 });
    expect(trip.transition?.to).toBe('open');
    await evaluateAlerts(db.pool, new Date());
    const [fired] = await circuitAlerts();
    expect(fired).toMatchObject({ task: 'flaky', status: 'firing', severity: 'critical', evidence: { state: 'open', reason: '5 of 6 executions failed in 60000 ms (threshold 50%)' } });

    const o = await overview();
    expect(o.fleet.breakersOpen).toBe(1);
    const card = o.cards.find((c) => c.task === 'flaky')!;
    expect(card.breaker).toMatchObject({ state: 'open', reason: '5 of 6 executions failed in 60000 ms (threshold 50%)' });
    expect(card.worst).toBe('critical');
    expect(o.cards.find((c) => c.task === 'steady')!.breaker).toBeNull();

    // Half-open: still not closed, the same episode stays open.
    await sleep(350);
    expect((await admitProbes(db.pool, 'flaky', settings, 5)).granted).toBe(1);
    await evaluateAlerts(db.pool, new Date());
    expect((await circuitAlerts()).map((a) => a.status)).toEqual(['firing']);
    expect((await overview()).cards.find((c) => c.task === 'flaky')!.breaker?.state).toBe('half-open');

    // The probe succeeds: closed; the next run resolves the alert.
    expect((await recordBreakerOutcomes(db.pool, 'flaky', settings, { ok: 1, failed: 0 })).breaker.state).toBe('closed');
    await evaluateAlerts(db.pool, new Date());
    // (The episode keeps the evidence it last breached with: the half-open state.)
    expect((await circuitAlerts()).map((a) => [a.status, a.evidence.state])).toEqual([['resolved', 'half-open']]);
    const ev = await db.pool.query<{ type: string }>(`SELECT e.type FROM alert_events e JOIN alerts a ON a.id = e.alert_id WHERE a.rule = 'circuitOpen' ORDER BY e.id`);
    expect(ev.rows.map((r) => r.type)).toEqual(['fired', 'resolved']);
    const after = await overview();
    expect(after.fleet.breakersOpen).toBe(0);
    expect(after.cards.find((c) => c.task === 'flaky')!.breaker).toBeNull();
  });

  it('the fleet strip counts fleet-wide firing alerts as well as the cards’', async () => {
    const before = (await overview()).fleet;
    await db.pool.query(
      `INSERT INTO alerts (key, task, rule, subject, severity, status, since, fired_at, last_observed_at)
       VALUES ('|dbConnections|postgres', '', 'dbConnections', 'postgres', 'critical', 'firing', now(), now(), now())`,
    );
    const f = (await overview()).fleet;
    expect(f.alertsFiring.critical).toBe(before.alertsFiring.critical + 1);
    expect(f.fleetAlertsFiring).toEqual({ critical: before.fleetAlertsFiring.critical + 1, warning: before.fleetAlertsFiring.warning });
  });
});
