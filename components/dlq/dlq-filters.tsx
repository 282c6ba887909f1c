// The filter bar: a GET form (next/form navigates client-side), so the filter lands in
// the URL — the page, a shared link, a replay and a purge all read the same filter.
import Form from 'next/form';
import Link from 'next/link';
import type { DlqFilter } from '@/server/core/dlq-filter';
import { buttonClass } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/input';
import { utcInputValue, type DlqSearchParams } from './dlq-search-params';

function raw(sp: DlqSearchParams, key: string): string {
  const v = sp[key];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

function Labelled({ label, htmlFor, children }: { label: string; htmlFor: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={htmlFor} className="text-[12px] font-medium text-muted">
        {label}
      </label>
      {children}
    </div>
  );
}

export function DlqFilters({ sp, filter, tasks }: { sp: DlqSearchParams; filter: DlqFilter | null; tasks: string[] }) {
  const v = (k: keyof DlqFilter) => (filter ? ((filter[k] as string | undefined) ?? '') : raw(sp, k));
  return (
    <Form action="/dead-letters" aria-label="Filter dead letters" className="grid grid-cols-2 gap-3 p-3 md:grid-cols-4 xl:grid-cols-[repeat(8,minmax(0,1fr))_auto]">
      <Labelled label="Task" htmlFor="dlq-task">
        <Select id="dlq-task" name="task" defaultValue={v('task')}>
          <option value="">All tasks</option>
          {[...new Set([...tasks, ...(filter?.task ? [filter.task] : [])])].map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </Select>
      </Labelled>
      <Labelled label="Error text" htmlFor="dlq-q">
        <Input id="dlq-q" name="q" defaultValue={v('q')} placeholder="timeout, 503…" />
      </Labelled>
      <Labelled label="Fingerprint" htmlFor="dlq-fingerprint">
        <Input id="dlq-fingerprint" name="fingerprint" defaultValue={v('fingerprint')} className="font-mono" />
      </Labelled>
      <Labelled label="Group key" htmlFor="dlq-group">
        <Input id="dlq-group" name="group" defaultValue={v('group')} placeholder="tenant=acme" />
      </Labelled>
      <Labelled label="Stream" htmlFor="dlq-stream">
        <Input id="dlq-stream" name="stream" defaultValue={v('stream')} />
      </Labelled>
      <Labelled label="Dead from (UTC)" htmlFor="dlq-from">
        <Input id="dlq-from" name="from" type="datetime-local" defaultValue={filter ? utcInputValue(filter.from) : raw(sp, 'from')} />
      </Labelled>
      <Labelled label="Dead before (UTC)" htmlFor="dlq-to">
        <Input id="dlq-to" name="to" type="datetime-local" defaultValue={filter ? utcInputValue(filter.to) : raw(sp, 'to')} />
      </Labelled>
      <Labelled label="Status" htmlFor="dlq-status">
        <Select id="dlq-status" name="status" defaultValue={filter?.status ?? (raw(sp, 'status') || 'all')}>
          <option value="all">All</option>
          <option value="pending">Not replayed</option>
          <option value="replayed">Replayed</option>
        </Select>
      </Labelled>
      <div className="col-span-full flex items-end gap-2 xl:col-span-1">
        <button type="submit" className={buttonClass('primary')}>
          Apply
        </button>
        <Link href="/dead-letters" className={buttonClass('ghost')}>
          Reset
        </Link>
      </div>
    </Form>
  );
}
