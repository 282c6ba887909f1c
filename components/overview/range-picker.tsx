'use client';
// The time range picker (15 m … 7 d) and the live-refresh switch. Both live in the URL
// (?range=6h&live=off) so a view can be shared and survives a reload.
import { TIME_RANGES, type TimeRange } from '@/server/core/rollup-buckets';
import { cx } from '@/components/ui/class-names';

const LABEL: Record<TimeRange, string> = { '15m': '15m', '1h': '1h', '6h': '6h', '24h': '24h', '7d': '7d' };

export function RangePicker({ value, onChange }: { value: TimeRange; onChange: (r: TimeRange) => void }) {
  return (
    <div role="radiogroup" aria-label="Time range" className="inline-flex rounded-md border border-border-strong bg-surface p-0.5">
      {TIME_RANGES.map((r) => (
        <button
          key={r}
          type="button"
          role="radio"
          aria-checked={value === r}
          data-testid={`range-${r}`}
          onClick={() => onChange(r)}
          className={cx(
            'h-6 rounded px-2.5 text-[12px] font-medium tabular-nums transition-colors',
            value === r ? 'bg-accent text-accent-fg' : 'text-muted hover:bg-surface-2 hover:text-fg',
          )}
        >
          {LABEL[r]}
        </button>
      ))}
    </div>
  );
}

export function LiveToggle({ live, fetching, stale = false, onChange }: { live: boolean; fetching: boolean; stale?: boolean; onChange: (live: boolean) => void }) {
  return (
    <button
      type="button"
      aria-pressed={live}
      onClick={() => onChange(!live)}
      data-testid="live-toggle"
      data-state={stale ? 'stale' : live ? 'live' : 'paused'}
      title={stale ? 'Live refresh is failing — the data shown is stale' : live ? 'Refreshing every 10 s — click to pause' : 'Paused — click to refresh live'}
      className={cx(
        'inline-flex h-7 items-center gap-1.5 rounded-md border bg-surface px-2.5 text-[12px] font-medium hover:text-fg',
        stale ? 'border-warning text-warning' : 'border-border-strong text-muted',
      )}
    >
      <span className={cx('inline-block h-2 w-2 rounded-full', stale ? 'bg-warning' : live ? 'bg-success' : 'bg-subtle', live && fetching && 'animate-pulse')} />
      {stale ? 'Stale' : live ? 'Live' : 'Paused'}
    </button>
  );
}
