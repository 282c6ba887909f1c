'use client';
// "Cancel matching…" on the executions list, two steps like the DLQ purge:
//   1. Preview — freezes, on the server, the exact ids of the task's executions that match
//      the list's filter now, and shows how many per state;
//   2. Type "cancel <count>" — only the frozen ids are canceled; executions enqueued after
//      the preview are kept.
// The dialog is the DLQ purge's (components/ui/frozen-set-dialog.tsx). The list filter maps
// onto the cancel filter (cancelFilterForListFilter: task, state, group, stream, enqueue time);
// a filter the cancel cannot take (no task, a finished state, id / idempotency key /
// payload / finish time) leaves the button disabled with the reason.
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { Button } from '@/components/ui/button';
import { FrozenSetDialog } from '@/components/ui/frozen-set-dialog';
import { cancelFilterForListFilter, type ExecutionCancelFilterInput } from '@/server/core/execution-cancel-filter';
import type { ExecutionFilter } from '@/server/core/execution-filter';

function describe(f: ExecutionCancelFilterInput): string {
  const parts = [`task ${f.task}`];
  parts.push(f.states ? `state ${f.states.join(', ')}` : 'waiting (queued, scheduled, blocked, spilled)');
  if (f.group) parts.push(f.group);
  if (f.stream) parts.push(`stream ${f.stream}`);
  return parts.join(' · ');
}

export function CancelMatchingButton({ listFilter, canAct }: { listFilter: ExecutionFilter; canAct: boolean }) {
  const [open, setOpen] = useState(false);
  const m = cancelFilterForListFilter(listFilter);
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

  return (
    <FrozenSetDialog
      title="Cancel matching executions"
      onClose={onClose}
      dismissLabel="Close"
      intro={
        <>
          Cancel <strong>{describe(filter)}</strong>. First, freeze the exact set: the cancel acts on those executions and on nothing enqueued later.
        </>
      }
      previewLabel="Preview cancel"
      preview={preview}
      startPreview={() => preview.mutate({ filter })}
      apply={apply}
      confirm={(previewId, typed) => apply.mutate({ previewId, confirm: typed })}
      done={(r) => (
        <>
          Canceled {r.canceled.toLocaleString('en-US')} of the {r.frozen.toLocaleString('en-US')} frozen executions
          {r.requested > 0 ? `; ${r.requested.toLocaleString('en-US')} running: their coordinators abort them` : ''}
          {r.skipped > 0 ? `; ${r.skipped.toLocaleString('en-US')} had finished meanwhile` : ''}. Executions enqueued after the preview were kept.
        </>
      )}
      nothing="Nothing matches: there is nothing to cancel."
      noun={['execution', 'executions']}
      countTestId="cancel-frozen-count"
      span={(p) => ({ what: 'enqueued', from: p.oldestEnqueuedAt, to: p.newestEnqueuedAt })}
      breakdown={(p) => p.byState.map((s) => ({ key: s.state, label: s.state, count: s.count }))}
      verb={['Cancel', 'Canceling…']}
    />
  );
}
