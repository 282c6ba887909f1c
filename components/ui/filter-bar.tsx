// The pieces every list's filter bar (a GET form: the filter lives in the URL) is made of:
// a labelled field, the task select, Apply / Reset, and the raw value of a search param
// (shown back as typed when the filter did not parse, so the operator can fix it).
import Link from 'next/link';
import { buttonClass } from '@/components/ui/button';
import { Select } from '@/components/ui/input';

export type SearchParams = Record<string, string | string[] | undefined>;

/** The first value of `key` in the page's search params, '' when absent. */
export function rawParam(sp: SearchParams, key: string): string {
  const v = sp[key];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

export function Labelled({ label, htmlFor, children }: { label: string; htmlFor: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={htmlFor} className="text-[12px] font-medium text-muted">
        {label}
      </label>
      {children}
    </div>
  );
}

/** "All tasks" and the configured tasks, plus the filtered one if it is no longer configured. */
export function TaskSelect({ id, value, tasks, current }: { id: string; value: string; tasks: string[]; current: string | undefined }) {
  return (
    <Labelled label="Task" htmlFor={id}>
      <Select id={id} name="task" defaultValue={value}>
        <option value="">All tasks</option>
        {[...new Set([...tasks, ...(current ? [current] : [])])].map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </Select>
    </Labelled>
  );
}

export function FilterActions({ resetHref, className }: { resetHref: string; className: string }) {
  return (
    <div className={`col-span-full flex items-end gap-2 ${className}`}>
      <button type="submit" className={buttonClass('primary')}>
        Apply
      </button>
      <Link href={resetHref} className={buttonClass('ghost')}>
        Reset
      </Link>
    </div>
  );
}
