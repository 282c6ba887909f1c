'use client';
// "Cancel matching…" on the executions list, two steps like the DLQ purge:
//   1. Preview — freezes, on the server, the exact ids of the task's executions that match
//      the list's filter now, and shows how many per state;
//   2. Type "cancel <count>" — only the frozen ids are canceled; executions enqueued after
//      the preview are kept.
// The list filter maps onto the cancel filter (task, state, group, stream, enqueue time);
// a filter the cancel cannot take (no task, a finished state, id / idempotency key /
// payload / finish time) leaves the button disabled with the reason.
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/field';
import { Callout } from '@/components/ui/callout';
import { Timestamp } from '@/components/ui/timestamp';
import { confirmationMatches } from '@/server/core/dlq-filter';
import { CANCELABLE_STATES, cancelConfirmationPhrase, type CancelableState, type ExecutionCancelFilterInput } from '@/server/core/execution-cancel-filter';
import type { ExecutionFilter } from '@/server/core/execution-filter';
import { Modal } from '@/components/dlq/modal';

/** The cancel filter for a list filter, or why there is none. */
export function cancelFilterFor(f: ExecutionFilter): { filter: ExecutionCancelFilterInput } | { reason: string } {
  if (f.task === undefined) return { reason: 'Pick a task first: cancel acts on one task at a time' };
  if (f.state !== undefined && !(CANCELABLE_STATES as readonly string[]).includes(f.state)) return { reason: `${f.state} executions are finished: nothing to cancel` };
  const unsupported = (['id', 'idempotencyKey', 'payload', 'finishedFrom', 'finishedTo'] as const).filter((k) => f[k] !== undefined);
  if (unsupported.length > 0) return { reason: `Cancel matching takes task, state, group, stream and enqueue time; remove ${unsupported.join(', ')}` };
  return {
    filter: {
      task: f.task,
      ...(f.state !== undefined ? { states: [f.state as CancelableState] } : {}),
      ...(f.group !== undefined ? { group: f.group } : {}),
      ...(f.stream !== undefined ? { stream: f.stream } : {}),
      ...(f.enqueuedFrom !== undefined ? { from: f.enqueuedFrom } : {}),
      ...(f.enqueuedTo !== undefined ? { to: f.enqueuedTo } : {}),
    },
  };
}

function describe(f: ExecutionCancelFilterInput): string {
  const parts = [`task ${f.task}`];
  parts.push(f.states ? `state ${f.states.join(', ')}` : 'waiting (queued, scheduled, blocked, spilled)');
  if (f.group) parts.push(f.group);
  if (f.stream) parts.push(`stream ${f.stream}`);
  return parts.join(' · ');
}

export function CancelMatchingButton({ listFilter, canAct }: { listFilter: ExecutionFilter; canAct: boolean }) {
  const [open, setOpen] = useState(false);
  const m = cancelFilterFor(listFilter);
  const reason = !canAct ? 'Operators only: your role can read executions but not cancel them' : 'reason' in m ? m.reason : undefined;
  return (
    <>
      <Button variant="danger" disabled={reason !== undefined} title={reason} onClick={() => setOpen(true)}>
        Cancel matching…
      </Button>
      {open && 'filter' in m && <CancelMatchingDialog filter={m.filter} onClose={() => setOpen(false)} />}
    </>
  );
}

export function CancelMatchingDialog({ filter, onClose }: { filter: ExecutionCancelFilterInput; onClose: () => void }) {
  const router = useRouter();
  const trpc = useTRPC();
  const preview = useMutation(trpc.executionActions.previewCancelMatching.mutationOptions());
  const apply = useMutation(trpc.executionActions.cancelMatching.mutationOptions({ onSuccess: () => router.refresh() }));
  const [typed, setTyped] = useState('');
  const p = preview.data;
  const fe = fieldErrorsOf(apply.error);

  return (
    <Modal open title="Cancel matching executions" onClose={onClose}>
      {apply.data ? (
        <>
          <Callout tone="success">
            Canceled {apply.data.canceled.toLocaleString('en-US')} of the {apply.data.frozen.toLocaleString('en-US')} frozen executions
            {apply.data.requested > 0 ? `; ${apply.data.requested.toLocaleString('en-US')} running: their coordinators abort them` : ''}
            {apply.data.skipped > 0 ? `; ${apply.data.skipped.toLocaleString('en-US')} had finished meanwhile` : ''}. Executions enqueued after the preview were kept.
          </Callout>
          <div className="flex justify-end">
            <Button variant="primary" onClick={onClose}>
              Close
            </Button>
          </div>
        </>
      ) : !p ? (
        <>
          <p>
            Cancel <strong>{describe(filter)}</strong>. First, freeze the exact set: the cancel acts on those executions and on nothing enqueued later.
          </p>
          {preview.error && <Callout tone="danger">{errorMessage(preview.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Close
            </Button>
            <Button variant="primary" disabled={preview.isPending} onClick={() => preview.mutate({ filter })}>
              {preview.isPending ? 'Freezing…' : 'Preview cancel'}
            </Button>
          </div>
        </>
      ) : p.total === 0 ? (
        <>
          <Callout tone="accent">Nothing matches: there is nothing to cancel.</Callout>
          <div className="flex justify-end">
            <Button onClick={onClose}>Close</Button>
          </div>
        </>
      ) : (
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            apply.mutate({ previewId: p.id, confirm: typed });
          }}
        >
          <div className="rounded-md border border-border bg-surface-2 p-3">
            <p className="text-[15px] font-semibold" data-testid="cancel-frozen-count">
              {p.total.toLocaleString('en-US')} execution{p.total === 1 ? '' : 's'} frozen
            </p>
            <p className="mt-1 text-[12px] text-muted">
              enqueued between <Timestamp date={p.oldestEnqueuedAt} /> and <Timestamp date={p.newestEnqueuedAt} /> · preview expires <Timestamp date={p.expiresAt} />
            </p>
            <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-[12px]">
              {p.byState.map((s) => (
                <li key={s.state}>
                  {s.state} <span className="text-muted">{s.count.toLocaleString('en-US')}</span>
                </li>
              ))}
            </ul>
          </div>
          <Field label={`Type “${p.confirmation}” to confirm`} error={fe.confirm}>
            <Input autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} placeholder={p.confirmation} />
          </Field>
          {apply.error && !fe.confirm && <Callout tone="danger">{errorMessage(apply.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Close
            </Button>
            <Button type="submit" variant="danger" disabled={apply.isPending || !confirmationMatches(typed, p.total, cancelConfirmationPhrase(p.total))}>
              {apply.isPending ? 'Canceling…' : `Cancel ${p.total.toLocaleString('en-US')}`}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}
