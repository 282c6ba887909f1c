// Today's config vs a proposed one, both simulated on the same recording: the keys whose
// wait changes most (by p99, in either direction), and the alerts that would fire under
// each. Pure: no I/O imports (server/core rule).
import type { FiredAlert, KeyWait, SimulationResult } from './whatif-simulator';

export interface KeyComparison {
  group: string;
  key: string;
  today: KeyWait | null;
  proposed: KeyWait | null;
  /** proposed p99 − today's p99 (ms); a key missing on one side counts as 0 there. */
  deltaP99Ms: number;
}

export interface WhatIfComparison {
  /** The most affected keys, largest |Δ p99| first (ties: higher proposed p99, then name). */
  keys: KeyComparison[];
  /** Alerts firing under the proposal that do not fire today (same rule and subject). */
  newAlerts: FiredAlert[];
  /** Alerts firing today that the proposal avoids. */
  clearedAlerts: FiredAlert[];
}

const alertId = (a: FiredAlert) => `${a.rule}|${a.subject}`;

export function compareWhatIf(today: SimulationResult, proposed: SimulationResult, top = 5): WhatIfComparison {
  const byKey = new Map<string, KeyComparison>();
  const id = (k: KeyWait) => `${k.group}\u0000${k.key}`;
  for (const k of today.keyWaits) byKey.set(id(k), { group: k.group, key: k.key, today: k, proposed: null, deltaP99Ms: 0 });
  for (const k of proposed.keyWaits) {
    const row = byKey.get(id(k)) ?? { group: k.group, key: k.key, today: null, proposed: null, deltaP99Ms: 0 };
    row.proposed = k;
    byKey.set(id(k), row);
  }
  const rows = [...byKey.values()].map((r) => ({ ...r, deltaP99Ms: (r.proposed?.p99WaitMs ?? 0) - (r.today?.p99WaitMs ?? 0) }));
  rows.sort(
    (a, b) =>
      Math.abs(b.deltaP99Ms) - Math.abs(a.deltaP99Ms) ||
      (b.proposed?.p99WaitMs ?? 0) - (a.proposed?.p99WaitMs ?? 0) ||
      (a.group + a.key < b.group + b.key ? -1 : 1),
  );
  const todayIds = new Set(today.alerts.map(alertId));
  const proposedIds = new Set(proposed.alerts.map(alertId));
  return {
    keys: rows.slice(0, top),
    newAlerts: proposed.alerts.filter((a) => !todayIds.has(alertId(a))),
    clearedAlerts: today.alerts.filter((a) => !proposedIds.has(alertId(a))),
  };
}
