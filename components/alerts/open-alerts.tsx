'use client';
// The open alerts in short, where a page is about more than alerts: the Overview (every
// task) and a task's metrics page (that task). Same order and rows as the Alerts page —
// critical first, then the newest fired (the list query sorts) — and a link to the rest.
// Shows nothing while no alert is open.
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { AlertRow } from './alerts-view';
import { alertsHref } from './alert-search-params';

export function OpenAlerts({ task, limit = 5 }: { task?: string; limit?: number }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.alerts.list.queryOptions({ status: 'open', limit, ...(task ? { task } : {}) }), refetchInterval: 10_000 });
  const items = q.data?.items ?? [];
  if (items.length === 0) return null;
  const open = q.data!.counts;
  // The counts are fleet-wide; for one task, "more" is whether there is a next page.
  const more = task ? q.data!.nextCursor !== null : open.firing + open.acknowledged > items.length;
  return (
    <section aria-labelledby="open-alerts" className="rounded-lg border border-border bg-surface" data-testid="open-alerts">
      <h2 id="open-alerts" className="flex flex-wrap items-baseline justify-between gap-x-3 border-b border-border px-3 py-2 text-[13px] font-semibold">
        <span>
          Open alerts <span className="font-normal text-subtle">— critical first, then the newest</span>
        </span>
        <Link href={alertsHref({ status: 'open', ...(task ? { task } : {}) })} className="text-[12px] font-normal text-accent hover:underline">
          {more ? 'All open alerts →' : 'Open the Alerts page →'}
        </Link>
      </h2>
      <ul className="divide-y divide-border" data-testid="open-alerts-list">
        {items.map((a) => (
          <li key={a.id}>
            <AlertRow a={a} href={alertsHref({ status: 'open', ...(task ? { task } : {}), alert: a.id })} />
          </li>
        ))}
      </ul>
    </section>
  );
}
