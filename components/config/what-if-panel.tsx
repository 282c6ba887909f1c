'use client';
// The what-if preview in the review step of the task editor: the task's recorded traffic
// replayed under today's definition and under the edit (server/presenters/task-whatif.ts),
// side by side — throughput, wait p50/p99, the five most affected keys' p99, depth over
// time, drain time of the backlog, alerts that would fire — with what the prediction
// stands on (coverage), so an operator sees the consequence before Apply.
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { MIN_P99_SAMPLES, type FiredAlert } from '@/server/core/whatif-simulator';
import type { WhatIfPreview } from '@/server/presenters/task-whatif';
import { Badge } from '@/components/ui/badge';
import { Callout } from '@/components/ui/callout';
import { cx } from '@/components/ui/class-names';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { formatDuration } from '@/components/charts/chart-format';

const dur = (v: number | null | undefined) => (v === null || v === undefined ? '—' : formatDuration(v));
const drain = (v: number | null) => (v === null ? 'not within 24 h' : v === 0 ? 'no backlog' : formatDuration(v));

function worse(today: number | null, proposed: number | null): boolean {
  if (proposed === null) return false;
  return today === null ? proposed > 0 : proposed > today * 1.15 + 1;
}

function AlertBadges({ alerts, testId }: { alerts: readonly FiredAlert[]; testId: string }) {
  if (alerts.length === 0) return <span className="text-muted">none</span>;
  return (
    <span className="flex flex-wrap gap-1" data-testid={testId}>
      {alerts.map((a) => (
        <Badge key={`${a.rule}|${a.subject}`} tone={a.severity === 'critical' ? 'danger' : 'warning'}>
          {a.rule}
          {a.subject ? ` ${a.subject}` : ''} · {a.severity}
        </Badge>
      ))}
    </span>
  );
}

export function WhatIfPanel({
  preview,
  pending,
  error,
  windowHours,
  onWindowHours,
}: {
  preview: WhatIfPreview | undefined;
  pending: boolean;
  error: string | undefined;
  windowHours: number;
  onWindowHours: (h: number) => void;
}) {
  const windowPicker = (
    <label className="flex items-center gap-1.5 text-[12px] text-muted">
      Replay the last
      <select
        aria-label="What-if window"
        className="rounded border border-border bg-surface px-1.5 py-0.5 text-[12px] text-fg"
        value={windowHours}
        onChange={(e) => onWindowHours(Number(e.target.value))}
        disabled={pending}
      >
        {[0.25, 1, 3, 6, 24].map((h) => (
          <option key={h} value={h}>
            {h < 1 ? `${h * 60} min` : `${h} h`}
          </option>
        ))}
      </select>
    </label>
  );
  const header = (
    <div className="flex flex-wrap items-center justify-between gap-2">
      <h3 className="text-[13px] font-semibold">What-if on recorded traffic</h3>
      {windowPicker}
    </div>
  );
  if (pending || (!preview && !error)) {
    return (
      <section aria-label="What-if preview" className="flex flex-col gap-2 rounded-md border border-border p-3">
        {header}
        <p className="text-[12px] text-muted">Replaying recorded traffic…</p>
      </section>
    );
  }
  if (!preview) {
    return (
      <section aria-label="What-if preview" className="flex flex-col gap-2 rounded-md border border-border p-3">
        {header}
        <Callout tone="warning">No prediction: {error}</Callout>
      </section>
    );
  }
  const { today, proposed } = preview;
  const top = preview.keys[0];
  const depthRows = today.depth.atMs.map((at, i) => ({ min: +(at / 60_000).toFixed(2), today: today.depth.total[i] ?? null, proposed: null as number | null }));
  proposed.depth.atMs.forEach((at, i) => {
    const min = +(at / 60_000).toFixed(2);
    const row = depthRows.find((r) => r.min === min);
    if (row) row.proposed = proposed.depth.total[i] ?? null;
    else depthRows.push({ min, today: null, proposed: proposed.depth.total[i] ?? null });
  });
  depthRows.sort((a, b) => a.min - b.min);
  const rows: { label: string; today: string; proposed: string; bad: boolean }[] = [
    { label: 'Throughput (window avg)', today: `${today.throughputPerS.toFixed(1)}/s`, proposed: `${proposed.throughputPerS.toFixed(1)}/s`, bad: proposed.throughputPerS < today.throughputPerS * 0.85 },
    { label: 'Wait p50', today: dur(today.waitP50Ms), proposed: dur(proposed.waitP50Ms), bad: worse(today.waitP50Ms, proposed.waitP50Ms) },
    { label: 'Wait p99', today: dur(today.waitP99Ms), proposed: dur(proposed.waitP99Ms), bad: worse(today.waitP99Ms, proposed.waitP99Ms) },
    { label: 'Deepest partition', today: String(today.maxDepth), proposed: String(proposed.maxDepth), bad: worse(today.maxDepth, proposed.maxDepth) },
    { label: 'Backlog drain', today: drain(today.drainMs), proposed: drain(proposed.drainMs), bad: worse(today.drainMs, proposed.drainMs ?? Infinity) },
  ];
  return (
    <section aria-label="What-if preview" className="flex flex-col gap-3 rounded-md border border-border p-3" data-testid="what-if">
      {header}
      <Callout tone={preview.coverage.tooLittle || preview.coverage.truncated ? 'warning' : 'accent'}>
        <span data-testid="what-if-coverage">
          {preview.coverage.note} Simulated on {preview.coordinators.count} coordinator{preview.coordinators.count === 1 ? '' : 's'} (
          {preview.coordinators.slots.join(' + ')} slots).
        </span>
      </Callout>
      {top && (
        <p className="text-[13px]" data-testid="what-if-top-key">
          Most affected: <span className="font-mono">{top.group}={top.key}</span> — p99 wait{' '}
          <span className="font-mono tabular-nums">{dur(top.today?.p99WaitMs)}</span> today →{' '}
          <span className={cx('font-mono font-semibold tabular-nums', top.deltaP99Ms > 0 ? 'text-danger' : top.deltaP99Ms < 0 ? 'text-success' : undefined)} data-testid="what-if-top-p99">
            {dur(top.proposed?.p99WaitMs)}
          </span>{' '}
          proposed
        </p>
      )}
      <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
        <Table aria-label="Today vs proposed">
          <thead>
            <tr>
              <Th>Predicted</Th>
              <Th className="text-right">Today</Th>
              <Th className="text-right">Proposed</Th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <Tr key={r.label}>
                <Td>{r.label}</Td>
                <Td className="text-right font-mono tabular-nums">{r.today}</Td>
                <Td className={cx('text-right font-mono tabular-nums', r.bad && 'font-semibold text-danger')}>{r.proposed}</Td>
              </Tr>
            ))}
          </tbody>
        </Table>
        <Table aria-label="Most affected keys">
          <thead>
            <tr>
              <Th>Key (p99 wait)</Th>
              <Th className="text-right">Today</Th>
              <Th className="text-right">Proposed</Th>
            </tr>
          </thead>
          <tbody>
            {preview.keys.length === 0 && (
              <Tr>
                <Td colSpan={3} className="text-muted">
                  No group keys in the recording
                </Td>
              </Tr>
            )}
            {preview.keys.map((k) => (
              <Tr key={`${k.group}=${k.key}`}>
                <Td className="max-w-48 truncate font-mono" title={`${k.group}=${k.key}`}>
                  {k.group}={k.key}
                  {(k.today?.p99FewSamples || k.proposed?.p99FewSamples) && (
                    <span className="text-muted" data-testid="what-if-few-samples" title={`${k.today?.count ?? k.proposed?.count ?? 0} waits: fewer than ${MIN_P99_SAMPLES}`}>
                      {' '}
                      *
                    </span>
                  )}
                </Td>
                <Td className="text-right font-mono tabular-nums">{dur(k.today?.p99WaitMs)}</Td>
                <Td className={cx('text-right font-mono tabular-nums', k.deltaP99Ms > 0 && worse(k.today?.p99WaitMs ?? null, k.proposed?.p99WaitMs ?? null) && 'font-semibold text-danger')}>
                  {dur(k.proposed?.p99WaitMs)}
                </Td>
              </Tr>
            ))}
          </tbody>
        </Table>
        {preview.keys.some((k) => k.today?.p99FewSamples || k.proposed?.p99FewSamples) && (
          <p className="text-[12px] text-muted">
            * fewer than {MIN_P99_SAMPLES} waits in the window: the p99 shown is the key’s slowest wait (one execution), not a percentile — a rough bound, not a prediction to hold the change to.
          </p>
        )}
      </div>
      <div className="h-40 w-full" aria-label="Predicted depth over time">
        <LineChart responsive data={depthRows} margin={{ top: 8, right: 10, bottom: 0, left: 0 }} style={{ width: '100%', height: '100%' }}>
          <CartesianGrid stroke="var(--color-border)" strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="min" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${Math.round(v)} m`} stroke="var(--color-muted)" fontSize={11} />
          <YAxis stroke="var(--color-muted)" fontSize={11} width={48} allowDecimals={false} />
          <Tooltip formatter={(v) => String(v)} labelFormatter={(v) => `${v} min into the replay`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Line type="monotone" dataKey="today" name="Depth today" stroke="var(--color-muted)" dot={false} isAnimationActive={false} connectNulls />
          <Line type="monotone" dataKey="proposed" name="Depth proposed" stroke="var(--color-accent)" dot={false} isAnimationActive={false} connectNulls />
        </LineChart>
      </div>
      <div className="flex flex-col gap-1 text-[12px]">
        <div className="flex flex-wrap items-center gap-2">
          <span className="w-28 text-muted">Alerts today</span>
          <AlertBadges alerts={today.alerts} testId="what-if-alerts-today" />
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <span className="w-28 text-muted">Alerts proposed</span>
          <AlertBadges alerts={proposed.alerts} testId="what-if-alerts-proposed" />
        </div>
      </div>
    </section>
  );
}
