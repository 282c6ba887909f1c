'use client';
// Replay dialog, frozen like the purge (components/ui/frozen-set-dialog.tsx): opening it
// freezes the dead letters not yet replayed and shows their count; "Start replay" makes a
// job of exactly those, so dead letters that arrive in between are not swept in. The
// options (reset attempts, rate) sit beside the count; a request id made when the dialog
// opened turns a double click, or a retry after a network error, into the same job.
import { useCallback, useMemo, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/field';
import { FrozenSetDialog } from '@/components/ui/frozen-set-dialog';
import { replayRateProblem } from '@/server/core/replay-rate';
import { frozenDeadLetterProps } from './frozen-dead-letters';
import { describeScope, type ScopeDialogProps } from './dead-letter-scope';

export function ReplayDialog({
  scope,
  count,
  countCapped,
  onClose,
  onDone,
}: ScopeDialogProps<[jobId: number]>) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const requestId = useMemo(() => crypto.randomUUID(), []);
  const [resetAttempts, setResetAttempts] = useState(true);
  const [rate, setRate] = useState('');
  const preview = useMutation(trpc.deadLetters.previewReplay.mutationOptions());
  const replay = useMutation(
    trpc.deadLetters.replayPreview.mutationOptions({
      onSuccess: async (r) => {
        await qc.invalidateQueries(trpc.deadLetters.replayJobs.pathFilter());
        if (r.job) onDone?.(r.job.id);
      },
    }),
  );
  const fe = fieldErrorsOf(replay.error);
  const problem = replayRateProblem(rate);
  const { mutate: freeze } = preview;
  const startPreview = useCallback(() => freeze({ scope }), [freeze, scope]);

  return (
    <FrozenSetDialog
      {...frozenDeadLetterProps}
      title="Replay dead letters"
      onClose={onClose}
      dismissLabel="Cancel"
      intro={
        <>
          Replay <strong>{describeScope(scope, count, countCapped)}</strong>: freezing the exact set first, so the replay enqueues those dead letters and
          nothing that arrives later.
        </>
      }
      previewLabel="Freeze the set"
      preview={preview}
      startPreview={startPreview}
      autoPreview
      typedConfirmation={false}
      apply={replay}
      confirm={(previewId) => replay.mutate({ previewId, resetAttempts, ratePerSecond: rate.trim() === '' ? null : Number(rate), requestId })}
      done={(r) => (
        <>
          Replay job <strong>#{r.job?.id}</strong> {r.existing ? 'was already created for this request' : 'created'}: {r.total.toLocaleString('en-US')} dead
          letter{r.total === 1 ? '' : 's'}
          {r.alreadyReplayed > 0 && <> ({r.alreadyReplayed.toLocaleString('en-US')} replayed by someone else since the preview, left out)</>}. It runs in the
          background; follow it in <em>Replay jobs</em>.
        </>
      )}
      nothing="Every matching dead letter was already replayed: there is nothing to replay."
      countTestId="replay-frozen-count"
      extra={() => (
        <div className="flex flex-col gap-3">
          <p className="text-[12px] text-muted">
            Enqueued again through the task&apos;s routing, backpressure, stream order and group limits. Dead letters already replayed are not in the set.
          </p>
          <label className="flex items-start gap-2">
            <input type="checkbox" className="mt-0.5" checked={resetAttempts} onChange={(e) => setResetAttempts(e.target.checked)} />
            <span>
              <span className="font-medium">Reset attempts</span>
              <span className="block text-[12px] text-muted">On: each replay gets the task&apos;s full retry budget. Off: only what is left of it (at least one attempt).</span>
            </span>
          </label>
          <Field label="Rate (executions per second)" hint="Empty = as fast as enqueue goes." error={problem ?? fe.ratePerSecond}>
            <Input
              type="number"
              min="0.1"
              step="any"
              inputMode="decimal"
              placeholder="unlimited"
              value={rate}
              onChange={(e) => setRate(e.target.value)}
              className="w-48"
              aria-invalid={problem !== null}
            />
          </Field>
        </div>
      )}
      blockedReason={problem && `Start is disabled: the rate ${problem}.`}
      verb={['Start replay of', 'Starting…']}
    />
  );
}
