'use client';
// Replay dialog: options (reset attempts, rate), then one request with a request id made
// when the dialog opened — a double click, or a retry after a network error, returns the
// same job instead of a second one. The job then runs in the background; its progress
// shows in the replay jobs panel.
import { useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/field';
import { Callout } from '@/components/ui/callout';
import { Modal } from './modal';
import { describeScope, type UiScope } from './dlq-scope';

export function ReplayDialog({
  scope,
  count,
  countCapped,
  onClose,
  onDone,
}: {
  scope: UiScope;
  count: number | null;
  countCapped?: boolean;
  onClose: () => void;
  onDone?: (jobId: number) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const requestId = useMemo(() => crypto.randomUUID(), []);
  const [resetAttempts, setResetAttempts] = useState(true);
  const [rate, setRate] = useState('');
  const m = useMutation(
    trpc.deadLetters.replay.mutationOptions({
      onSuccess: async (r) => {
        await qc.invalidateQueries(trpc.deadLetters.replayJobs.pathFilter());
        if (r.job) onDone?.(r.job.id);
      },
    }),
  );
  const fe = fieldErrorsOf(m.error);
  const rateNum = rate.trim() === '' ? null : Number(rate);
  const submit = () => m.mutate({ scope, resetAttempts, ratePerSecond: rateNum, requestId });

  return (
    <Modal open title="Replay dead letters" onClose={onClose}>
      {m.data ? (
        <>
          <Callout tone="success">
            Replay job <strong>#{m.data.job?.id}</strong> {m.data.existing ? 'was already created for this request' : 'created'}: {m.data.total.toLocaleString('en-US')} dead
            letter{m.data.total === 1 ? '' : 's'}
            {m.data.alreadyReplayed > 0 && <> ({m.data.alreadyReplayed.toLocaleString('en-US')} already replayed, left out)</>}. It runs in the
            background; follow it in <em>Replay jobs</em>.
          </Callout>
          <div className="flex justify-end">
            <Button variant="primary" onClick={onClose}>
              Close
            </Button>
          </div>
        </>
      ) : (
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <p>
            Enqueue <strong>{describeScope(scope, count, countCapped)}</strong> again, through the task&apos;s routing, backpressure, stream order and group
            limits. Dead letters already replayed are left out.
          </p>
          <label className="flex items-start gap-2">
            <input type="checkbox" className="mt-0.5" checked={resetAttempts} onChange={(e) => setResetAttempts(e.target.checked)} />
            <span>
              <span className="font-medium">Reset attempts</span>
              <span className="block text-[12px] text-muted">
                On: each replay gets the task&apos;s full retry budget. Off: only what is left of it (at least one attempt).
              </span>
            </span>
          </label>
          <Field label="Rate (executions per second)" hint="Empty = as fast as enqueue goes." error={fe.ratePerSecond}>
            <Input type="number" min="0.1" step="any" inputMode="decimal" placeholder="unlimited" value={rate} onChange={(e) => setRate(e.target.value)} className="w-48" />
          </Field>
          {m.error && !fe.ratePerSecond && <Callout tone="danger">{errorMessage(m.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" disabled={m.isPending || (rateNum !== null && !(rateNum > 0))}>
              {m.isPending ? 'Starting…' : 'Start replay'}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}
