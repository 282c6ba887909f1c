// A task's load right now, from the counters: running of the limit, backlog, spill,
// and how many partitions a live coordinator owns (0 = nothing is claiming).
import type { TaskLoadView } from '@/server/presenters/tasks';
import { cx } from '@/components/ui/class-names';

function Stat({ label, value, tone }: { label: string; value: string; tone?: 'warning' | 'danger' }) {
  return (
    <div className="flex min-w-28 flex-col px-3 py-2">
      <dt className="text-[11px] font-semibold tracking-wide text-muted uppercase">{label}</dt>
      <dd className={cx('font-mono text-[15px] tabular-nums', tone === 'warning' && 'text-warning', tone === 'danger' && 'text-danger')}>{value}</dd>
    </div>
  );
}

const n = (x: number) => x.toLocaleString('en-US');

export function TaskLoadStrip({ load, concurrency, partitions }: { load: TaskLoadView; concurrency: number; partitions: number }) {
  return (
    <dl aria-label="Current load" className="flex flex-wrap divide-x divide-border rounded-lg border border-border bg-surface">
      <Stat label="Running" value={`${n(load.inFlight)} / ${n(concurrency)}`} tone={load.inFlight > concurrency ? 'danger' : undefined} />
      <Stat label="Queued + blocked" value={n(load.depth)} />
      <Stat label="Deepest partition" value={n(load.maxPartitionDepth)} />
      <Stat label="Spilled" value={n(load.spilled)} tone={load.spilled > 0 ? 'warning' : undefined} />
      <Stat
        label="Partitions owned"
        value={`${load.ownedPartitions} / ${partitions}`}
        tone={load.ownedPartitions < partitions ? 'warning' : undefined}
      />
    </dl>
  );
}
