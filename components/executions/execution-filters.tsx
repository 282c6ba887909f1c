// The filter bar: a GET form (next/form navigates client-side), so the filter lands in the
// URL and a link to a filtered list is just a URL (the Overview's task cards and alerts
// link here).
import Form from 'next/form';
import { EXECUTION_STATES, type ExecutionFilter, type ExecutionOrder } from '@/server/core/execution-filter';
import { Input, Select } from '@/components/ui/input';
import { FilterActions, Labelled, TaskSelect, rawParam as raw } from '@/components/ui/filter-bar';
import { utcInputValue } from '@/components/dead-letters/dead-letter-search-params';
import type { ExecutionSearchParams } from './execution-search-params';

export function ExecutionFilters({
  sp,
  filter,
  order,
  tasks,
}: {
  sp: ExecutionSearchParams;
  filter: ExecutionFilter | null;
  order: ExecutionOrder;
  tasks: string[];
}) {
  const v = (k: keyof ExecutionFilter) => (filter ? (filter[k] === undefined ? '' : String(filter[k])) : raw(sp, k));
  const d = (k: 'enqueuedFrom' | 'enqueuedTo' | 'finishedFrom' | 'finishedTo') => (filter ? utcInputValue(filter[k]) : raw(sp, k));
  const more = ['idempotencyKey', 'id', 'enqueuedFrom', 'enqueuedTo', 'finishedFrom', 'finishedTo', 'payload'].some((k) => raw(sp, k) !== '');
  return (
    <Form action="/executions" aria-label="Filter executions" className="flex flex-col gap-3 p-3">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6">
        <TaskSelect id="ex-task" value={v('task')} tasks={tasks} current={filter?.task} />
        <Labelled label="State" htmlFor="ex-state">
          <Select id="ex-state" name="state" defaultValue={v('state')}>
            <option value="">Any state</option>
            {EXECUTION_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Labelled>
        <Labelled label="Group key" htmlFor="ex-group">
          <Input id="ex-group" name="group" defaultValue={v('group')} placeholder="tenant=acme" className="font-mono" />
        </Labelled>
        <Labelled label="Stream" htmlFor="ex-stream">
          <Input id="ex-stream" name="stream" defaultValue={v('stream')} className="font-mono" />
        </Labelled>
        <Labelled label="Order" htmlFor="ex-order">
          <Select id="ex-order" name="order" defaultValue={order}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </Select>
        </Labelled>
        <FilterActions resetHref="/executions" className="md:col-span-1" />
      </div>
      <details open={more} className="group">
        <summary className="cursor-pointer text-[12px] font-medium text-muted select-none hover:text-fg">More filters: id, idempotency key, times, payload</summary>
        <div className="mt-3 grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6">
          <Labelled label="Execution id" htmlFor="ex-id">
            <Input id="ex-id" name="id" inputMode="numeric" defaultValue={v('id')} className="font-mono" />
          </Labelled>
          <Labelled label="Idempotency key" htmlFor="ex-idem">
            <Input id="ex-idem" name="idempotencyKey" defaultValue={v('idempotencyKey')} className="font-mono" />
          </Labelled>
          <Labelled label="Payload (path=value)" htmlFor="ex-payload">
            <Input id="ex-payload" name="payload" defaultValue={v('payload')} placeholder="customer.id=42" className="font-mono" />
          </Labelled>
          <Labelled label="Enqueued from (UTC)" htmlFor="ex-ef">
            <Input id="ex-ef" name="enqueuedFrom" type="datetime-local" defaultValue={d('enqueuedFrom')} />
          </Labelled>
          <Labelled label="Enqueued before (UTC)" htmlFor="ex-et">
            <Input id="ex-et" name="enqueuedTo" type="datetime-local" defaultValue={d('enqueuedTo')} />
          </Labelled>
          <Labelled label="Finished from (UTC)" htmlFor="ex-ff">
            <Input id="ex-ff" name="finishedFrom" type="datetime-local" defaultValue={d('finishedFrom')} />
          </Labelled>
          <Labelled label="Finished before (UTC)" htmlFor="ex-ft">
            <Input id="ex-ft" name="finishedTo" type="datetime-local" defaultValue={d('finishedTo')} />
          </Labelled>
        </div>
      </details>
    </Form>
  );
}
