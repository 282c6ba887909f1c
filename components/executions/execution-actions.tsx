'use client';
// Operator actions on one execution, in its page header: Cancel (queued, scheduled,
// blocked, spilled: canceled at once; running: its coordinator aborts the handler and
// records it) and Retry now (a scheduled execution becomes due). Each asks for a
// confirmation first. Viewers see the buttons disabled with the reason.
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Modal } from '@/components/dead-letters/modal';

const CANCELABLE = new Set(['queued', 'scheduled', 'blocked', 'spilled', 'running']);

export function ExecutionActions({
  id,
  displayState,
  canAct,
  cancelRequested,
}: {
  id: number;
  displayState: string;
  /** operator or admin */
  canAct: boolean;
  /** a cancel of this running execution was already asked for */
  cancelRequested: boolean;
}) {
  const router = useRouter();
  const trpc = useTRPC();
  const [open, setOpen] = useState<'cancel' | 'retry' | null>(null);
  const done = () => {
    setOpen(null);
    router.refresh();
  };
  const cancel = useMutation(trpc.executionActions.cancel.mutationOptions({ onSuccess: done }));
  const retry = useMutation(trpc.executionActions.retryNow.mutationOptions({ onSuccess: done }));

  const viewerReason = 'Operators only: your role can read executions but not act on them';
  const cancelReason = !canAct
    ? viewerReason
    : cancelRequested
      ? 'Cancel requested: its coordinator is aborting the handler'
      : !CANCELABLE.has(displayState)
        ? `It is ${displayState}: there is nothing to cancel`
        : undefined;
  const retryReason = !canAct ? viewerReason : displayState !== 'scheduled' ? 'Only a scheduled execution (a retry backoff or a delay) can run now' : undefined;

  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex gap-2">
        <Button variant="secondary" disabled={retryReason !== undefined} title={retryReason} onClick={() => setOpen('retry')}>
          Retry now
        </Button>
        <Button variant="danger" disabled={cancelReason !== undefined} title={cancelReason} onClick={() => setOpen('cancel')}>
          Cancel execution
        </Button>
      </div>
      {!canAct && <p className="text-[12px] text-muted">{viewerReason}.</p>}
      {canAct && cancelRequested && <p className="text-[12px] text-muted">Cancel requested: its coordinator is aborting the handler.</p>}
      {open === 'cancel' && (
        <Modal open title={`Cancel execution ${id}?`} onClose={() => setOpen(null)}>
          <p>
            {displayState === 'running'
              ? 'It is running: its coordinator aborts the handler (the AbortSignal fires) and records it as canceled. Its group slots and its stream free once that is recorded.'
              : 'It will not run. Its stream, if it heads one, moves on to the next execution at once.'}
          </p>
          {cancel.error && <Callout tone="danger">{errorMessage(cancel.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setOpen(null)}>
              Keep it
            </Button>
            <Button variant="danger" disabled={cancel.isPending} onClick={() => cancel.mutate({ id })}>
              {cancel.isPending ? 'Canceling…' : 'Cancel execution'}
            </Button>
          </div>
        </Modal>
      )}
      {open === 'retry' && (
        <Modal open title={`Run execution ${id} now?`} onClose={() => setOpen(null)}>
          <p>It becomes due at once instead of at its scheduled time; a coordinator claims it when its limits allow.</p>
          {retry.error && <Callout tone="danger">{errorMessage(retry.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setOpen(null)}>
              Not now
            </Button>
            <Button variant="primary" disabled={retry.isPending} onClick={() => retry.mutate({ id })}>
              {retry.isPending ? 'Scheduling…' : 'Retry now'}
            </Button>
          </div>
        </Modal>
      )}
    </div>
  );
}
