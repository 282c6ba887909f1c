'use client';
// Deleting a task: only when idle, or with an explicit drain that moves its backlog to
// the dead-letter queue. The operator types the task name to confirm and gives a
// message; the server checks idleness again (the counters here may be seconds old).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { TaskLoadView } from '@/server/presenters/tasks';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';

export function DeleteTask({ task, basedOn, load, paused }: { task: string; basedOn: number | null; load: TaskLoadView; paused: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [message, setMessage] = useState(`Delete ${task}`);
  const [drain, setDrain] = useState(false);
  const busy = load.inFlight > 0 || load.depth > 0 || load.spilled > 0;
  const m = useMutation(
    trpc.tasks.delete.mutationOptions({
      onSuccess: async (r) => {
        await queryClient.invalidateQueries(trpc.tasks.pathFilter());
        router.push(`/tasks?deleted=${encodeURIComponent(task)}&version=${r.version}`);
      },
    }),
  );

  return (
    <section aria-labelledby="sec-danger" className="rounded-lg border border-danger/40 bg-surface">
      <header className="flex items-center justify-between gap-2 border-b border-danger/30 px-3 py-2">
        <div>
          <h2 id="sec-danger" className="text-[13px] font-semibold text-danger">
            Delete task
          </h2>
          <p className="text-[12px] text-muted">
            {busy
              ? `Not idle: ${load.inFlight} running, ${load.depth} queued or blocked, ${load.spilled} spilled.`
              : 'Idle: nothing running, queued or spilled.'}
          </p>
        </div>
        {!open && (
          <Button variant="danger" size="sm" onClick={() => setOpen(true)}>
            Delete…
          </Button>
        )}
      </header>
      {open && (
        <form
          className="flex flex-col gap-3 p-3"
          onSubmit={(e) => {
            e.preventDefault();
            m.mutate({ task, basedOn, message, drain });
          }}
        >
          {busy && (
            <Callout tone="warning">
              {load.inFlight > 0 && !paused
                ? 'This task is running executions. Pause it first and wait until nothing is running; then delete with drain.'
                : 'Deleting with drain moves every queued, blocked and spilled execution to the dead-letter queue, where it can be replayed if the task comes back.'}
              <label className="mt-2 flex items-center gap-2 text-[13px] text-fg">
                <input type="checkbox" checked={drain} onChange={(e) => setDrain(e.target.checked)} />
                Drain: move the backlog ({load.depth + load.spilled}) to the dead-letter queue
              </label>
            </Callout>
          )}
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <Field label={`Type ${task} to confirm`}>
              <Input value={typed} onChange={(e) => setTyped(e.target.value)} className="font-mono" autoComplete="off" />
            </Field>
            <Field label="Change message">
              <Input value={message} onChange={(e) => setMessage(e.target.value)} maxLength={500} />
            </Field>
          </div>
          {m.error && <Callout tone="danger">{errorMessage(m.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button onClick={() => setOpen(false)} disabled={m.isPending}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={typed !== task || message.trim() === '' || (busy && !drain) || m.isPending}>
              {m.isPending ? 'Deleting…' : drain ? 'Drain and delete' : 'Delete task'}
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
