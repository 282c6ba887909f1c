'use client';
// Purge dialog, two steps (never Sidekiq's "Delete All" that ignored the filter and raced
// new arrivals):
//   1. Preview — freezes the exact set on the server and shows its count (per task, time
//      span); optionally download it as JSON lines;
//   2. Type "purge <count>" — only the frozen set is deleted; dead letters that arrived
//      after the preview stay.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button, buttonClass } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/field';
import { Callout } from '@/components/ui/callout';
import { Timestamp } from '@/components/ui/timestamp';
import { confirmationMatches } from '@/server/core/dlq-filter';
import { Modal } from './modal';
import { describeScope, type UiScope } from './dlq-scope';

export function PurgeDialog({
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
  onDone?: () => void;
}) {
  const trpc = useTRPC();
  const preview = useMutation(trpc.dlq.previewPurge.mutationOptions());
  const purge = useMutation(trpc.dlq.purge.mutationOptions({ onSuccess: () => onDone?.() }));
  const [typed, setTyped] = useState('');
  const p = preview.data;
  const fe = fieldErrorsOf(purge.error);

  return (
    <Modal open title="Purge dead letters" onClose={onClose}>
      {purge.data ? (
        <>
          <Callout tone="success">
            Purged {purge.data.deleted.toLocaleString('en-US')} of the {purge.data.frozen.toLocaleString('en-US')} frozen dead letters. Dead letters that arrived
            after the preview were kept.
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
            Purge <strong>{describeScope(scope, count, countCapped)}</strong>. First, freeze the exact set: the purge will delete those dead letters and
            nothing that arrives later.
          </p>
          {preview.error && <Callout tone="danger">{errorMessage(preview.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button variant="primary" disabled={preview.isPending} onClick={() => preview.mutate({ scope })}>
              {preview.isPending ? 'Freezing…' : 'Preview purge'}
            </Button>
          </div>
        </>
      ) : p.total === 0 ? (
        <>
          <Callout tone="accent">Nothing matches any more: there is nothing to purge.</Callout>
          <div className="flex justify-end">
            <Button onClick={onClose}>Close</Button>
          </div>
        </>
      ) : (
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            purge.mutate({ previewId: p.id, confirm: typed });
          }}
        >
          <div className="rounded-md border border-border bg-surface-2 p-3">
            <p className="text-[15px] font-semibold" data-testid="purge-frozen-count">
              {p.total.toLocaleString('en-US')} dead letter{p.total === 1 ? '' : 's'} frozen
            </p>
            <p className="mt-1 text-[12px] text-muted">
              dead between <Timestamp date={p.oldestDeadAt} /> and <Timestamp date={p.newestDeadAt} /> · preview expires <Timestamp date={p.expiresAt} />
            </p>
            <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-[12px]">
              {p.byTask.map((t) => (
                <li key={t.task}>
                  <span className="font-mono">{t.task}</span> <span className="text-muted">{t.count.toLocaleString('en-US')}</span>
                </li>
              ))}
            </ul>
          </div>
          <p>
            <a className={buttonClass('secondary', 'sm')} href={`/api/dlq/purge-previews/${p.id}/export`} download>
              Export this set (JSON lines)
            </a>
          </p>
          <Field label={`Type “${p.confirmation}” to confirm`} error={fe.confirm}>
            <Input autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} placeholder={p.confirmation} />
          </Field>
          {purge.error && !fe.confirm && <Callout tone="danger">{errorMessage(purge.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={purge.isPending || !confirmationMatches(typed, p.total)}>
              {purge.isPending ? 'Purging…' : `Purge ${p.total.toLocaleString('en-US')}`}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}
