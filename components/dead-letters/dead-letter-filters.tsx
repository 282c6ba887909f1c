// The filter bar: a GET form (next/form navigates client-side), so the filter lands in
// the URL — the page, a shared link, a replay and a purge all read the same filter.
import Form from 'next/form';
import type { DeadLetterFilter } from '@/server/core/dead-letter-filter';
import { Input, Select } from '@/components/ui/input';
import { FilterActions, Labelled, TaskSelect, rawParam as raw } from '@/components/ui/filter-bar';
import { utcInputValue, type DeadLetterSearchParams } from './dead-letter-search-params';

export function DeadLetterFilters({ sp, filter, tasks }: { sp: DeadLetterSearchParams; filter: DeadLetterFilter | null; tasks: string[] }) {
  const v = (k: keyof DeadLetterFilter) => (filter ? ((filter[k] as string | undefined) ?? '') : raw(sp, k));
  return (
    <Form action="/dead-letters" aria-label="Filter dead letters" className="grid grid-cols-2 gap-3 p-3 md:grid-cols-4 2xl:grid-cols-[repeat(8,minmax(0,1fr))_auto]">
      <TaskSelect id="dlq-task" value={v('task')} tasks={tasks} current={filter?.task} />
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
      <FilterActions resetHref="/dead-letters" className="2xl:col-span-1" />
    </Form>
  );
}
