'use client';
// Purge dialog, two steps (never Sidekiq's "Delete All" that ignored the filter and raced
// new arrivals):
//   1. Preview — freezes the exact set on the server and shows its count (per task, time
//      span); optionally download it as JSON lines;
//   2. Type "purge <count>" — only the frozen set is deleted; dead letters that arrived
//      after the preview stay.
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { buttonClass } from '@/components/ui/button';
import { FrozenSetDialog } from '@/components/ui/frozen-set-dialog';
import { frozenDeadLetterProps } from './frozen-dead-letters';
import { describeScope, type ScopeDialogProps } from './dead-letter-scope';

export function PurgeDialog({
  scope,
  count,
  countCapped,
  onClose,
  onDone,
}: ScopeDialogProps) {
  const trpc = useTRPC();
  const preview = useMutation(trpc.deadLetters.previewPurge.mutationOptions());
  const purge = useMutation(trpc.deadLetters.purge.mutationOptions({ onSuccess: () => onDone?.() }));

  return (
    <FrozenSetDialog
      {...frozenDeadLetterProps}
      title="Purge dead letters"
      onClose={onClose}
      dismissLabel="Cancel"
      intro={
        <>
          Purge <strong>{describeScope(scope, count, countCapped)}</strong>. First, freeze the exact set: the purge will delete those dead letters and nothing
          that arrives later.
        </>
      }
      previewLabel="Preview purge"
      preview={preview}
      startPreview={() => preview.mutate({ scope })}
      apply={purge}
      confirm={(previewId, typed) => purge.mutate({ previewId, confirm: typed })}
      done={(r) => (
        <>
          Purged {r.deleted.toLocaleString('en-US')} of the {r.frozen.toLocaleString('en-US')} frozen dead letters. Dead letters that arrived after the preview
          were kept.
        </>
      )}
      nothing="Nothing matches any more: there is nothing to purge."
      countTestId="purge-frozen-count"
      extra={(p) => (
        <p>
          <a className={buttonClass('secondary', 'sm')} href={`/api/dead-letters/purge-previews/${p.id}/export`} download>
            Export this set (JSON lines)
          </a>
        </p>
      )}
      verb={['Purge', 'Purging…']}
    />
  );
}
