'use client';
// The Alerts page: filters in the URL, the list (critical first, then the newest fired;
// live), and the selected alert's detail beside it. AlertRow is also the row of the short
// open-alert lists on the Overview and a task's page (open-alerts.tsx).
import Link from 'next/link';
import Form from 'next/form';
import { useSearchParams } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { ALERT_RULE_LABEL, ALERT_RULES } from '@/server/core/alert-evaluation';
import { Button, buttonClass } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/input';
import { Callout } from '@/components/ui/callout';
import { EmptyState } from '@/components/ui/empty-state';
import { Timestamp } from '@/components/ui/timestamp';
import { cx } from '@/components/ui/class-names';
import { formatValue } from '@/components/charts/chart-format';
import { alertListQueryInput, alertParams, alertsHref, type AlertListStatus, type AlertParams } from './alert-search-params';
import { AlertDetailPanel, VALUE_KIND } from './alert-detail';
import { SeverityBadge, StatusPill } from './alert-badges';
import type { AlertListItem } from '@/server/presenters/alerts';

const STATUS_TABS: { value: AlertListStatus; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'firing', label: 'Firing' },
  { value: 'acknowledged', label: 'Acknowledged' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'all', label: 'All' },
];

function Filters({ p }: { p: AlertParams }) {
  return (
    <div className="flex flex-col gap-2 border-b border-border p-3">
      <nav aria-label="Alert status" className="flex flex-wrap gap-1">
        {STATUS_TABS.map((t) => (
          <Link
            key={t.value}
            href={alertsHref({ ...p, status: t.value, alert: undefined })}
            aria-current={p.status === t.value ? 'page' : undefined}
            className={cx('rounded-md px-2.5 py-1 text-[12px] font-medium', p.status === t.value ? 'bg-accent-soft text-accent' : 'text-muted hover:bg-surface-2 hover:text-fg')}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      <Form action="/alerts" className="grid grid-cols-2 gap-2 sm:grid-cols-[1fr_1fr_1fr_auto]" aria-label="Filter alerts">
        {p.status !== 'open' && <input type="hidden" name="status" value={p.status} />}
        <Input name="task" aria-label="Task" placeholder="task" defaultValue={p.task ?? ''} />
        <Select name="rule" aria-label="Rule" defaultValue={p.rule ?? ''}>
          <option value="">any rule</option>
          {ALERT_RULES.map((r) => (
            <option key={r} value={r}>
              {ALERT_RULE_LABEL[r]}
            </option>
          ))}
        </Select>
        <Select name="severity" aria-label="Severity" defaultValue={p.severity ?? ''}>
          <option value="">any severity</option>
          <option value="critical">critical</option>
          <option value="warning">warning</option>
        </Select>
        <Button type="submit" size="md">
          Filter
        </Button>
      </Form>
    </div>
  );
}

/** The page's alerts grouped by incident, each group where its first (most severe) alert falls in the list. */
function incidents(items: AlertListItem[]): AlertListItem[][] {
  const groups = new Map<number, AlertListItem[]>();
  for (const a of items) groups.set(a.incidentId, [...(groups.get(a.incidentId) ?? []), a]);
  return [...groups.values()];
}


export function AlertRow({ a, href, selected }: { a: AlertListItem; href: string; selected?: number }) {
  return (
    <Link
      href={href}
      scroll={false}
      aria-current={a.id === selected ? 'true' : undefined}
      data-testid={`alert-row-${a.id}`}
      data-severity={a.severity}
      data-fired-at={a.firedAt.getTime()}
      className={cx('flex flex-col gap-1 px-3 py-2.5 hover:bg-surface-2/60', a.id === selected && 'bg-accent-soft/60')}
    >
      <span className="flex items-center gap-2">
        <SeverityBadge severity={a.severity} />
        <span className="min-w-0 flex-1 text-[13px] font-medium break-words sm:truncate" title={a.summary}>
          {a.summary}
        </span>
        <StatusPill status={a.status} />
      </span>
      <span className="flex flex-wrap items-center gap-x-3 text-[11px] text-subtle">
        <Timestamp date={a.firedAt} />
        {/* A resolved episode is read by how bad it got: its peak, not the value it cleared at. */}
        {a.status === 'resolved' ? (
          <span data-testid="alert-value">
            peak <span className="font-mono text-muted">{formatValue(a.peakValue ?? a.value, VALUE_KIND[a.rule])}</span>
          </span>
        ) : (
          <span data-testid="alert-value">
            value <span className="font-mono text-muted">{formatValue(a.value, VALUE_KIND[a.rule])}</span>
            {a.peakValue !== null && a.peakValue !== a.value && (
              <>
                {' '}
                · peak <span className="font-mono text-muted">{formatValue(a.peakValue, VALUE_KIND[a.rule])}</span>
              </>
            )}
          </span>
        )}
        {a.acknowledgedBy && <span>ack by {a.acknowledgedBy}</span>}
        {a.silencedUntil && a.silencedUntil.getTime() > Date.now() && <span>silenced</span>}
      </span>
    </Link>
  );
}

export function AlertsView({ canAct }: { canAct: boolean }) {
  const sp = useSearchParams();
  const p = alertParams((k) => sp.get(k));
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.alerts.list.queryOptions(alertListQueryInput(p)), refetchInterval: 10_000 });
  const items = list.data?.items ?? [];
  const selected = p.alert ?? items[0]?.id;

  return (
    <div className="grid grid-cols-1 gap-4 xl:grid-cols-[minmax(0,5fr)_minmax(0,6fr)]">
      <section className="self-start rounded-lg border border-border bg-surface" aria-label="Alert list">
        <Filters p={p} />
        {list.error && (
          <div className="p-3">
            <Callout tone="danger">{list.error.message}</Callout>
          </div>
        )}
        {list.data && items.length === 0 && (
          <EmptyState title={p.status === 'open' ? 'Nothing is firing' : 'No alerts match'}>
            Alerts fire when a task crosses its warning or critical threshold for a minute, or when a partition or key runs hot.
          </EmptyState>
        )}
        {!list.data && !list.error && <div className="m-3 h-40 animate-pulse rounded bg-surface-2" aria-label="Loading alerts" />}
        {items.length > 0 && (
          <ul className="divide-y divide-border" data-testid="alert-list">
            {incidents(items).map((g) =>
              g.length === 1 ? (
                <li key={g[0]!.id}>
                  <AlertRow a={g[0]!} href={alertsHref({ ...p, alert: g[0]!.id })} selected={selected} />
                </li>
              ) : (
                <li key={`incident-${g[0]!.incidentId}`} data-testid={`alert-incident-${g[0]!.incidentId}`}>
                  <p className="flex items-center gap-2 bg-surface-2/60 px-3 pt-2 pb-1 text-[11px] font-semibold tracking-wide text-muted uppercase">
                    Incident · <span className="font-mono normal-case">{g[0]!.task || 'fleet'}</span> · {g.length} alerts
                  </p>
                  <ul className="divide-y divide-border border-l-2 border-l-border-strong">
                    {g.map((a) => (
                      <li key={a.id}>
                        <AlertRow a={a} href={alertsHref({ ...p, alert: a.id })} selected={selected} />
                      </li>
                    ))}
                  </ul>
                </li>
              ),
            )}
          </ul>
        )}
        {list.data?.nextCursor && (
          <p className="border-t border-border p-3 text-[12px] text-subtle">
            Showing the first {items.length} (critical first, then the newest). Narrow the filters to see the rest.{' '}
            <Link className={buttonClass('ghost', 'sm')} href={alertsHref({ status: 'all' })}>
              All alerts
            </Link>
          </p>
        )}
      </section>
      {/* Below xl the list and the detail stack: the detail shows only for an alert picked
          from the list, above it (a phone does not scroll past the list to an alert it did
          not ask for); from xl it sits beside the list, the first alert picked by default. */}
      <div className={cx('min-w-0', p.alert ? 'order-first xl:order-none' : 'hidden xl:block')}>
        {selected ? <AlertDetailPanel id={selected} canAct={canAct} /> : null}
      </div>
    </div>
  );
}
