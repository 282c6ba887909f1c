'use client';
// The two-step "act on everything matching" dialog that the DLQ purge and the executions'
// cancel by filter share (never Sidekiq's "Delete All" that ignored the filter and raced
// new arrivals):
//   1. Preview — the server freezes the exact set and reports its count (and a breakdown);
//   2. Type the confirmation phrase ("purge 120", "cancel 120") — only the frozen set is
//      acted on; what arrives after the preview is kept.
// The caller owns the two mutations (which procedure, what input) and the words; this
// component owns the steps, the typed confirmation and the layout. The replay uses it
// without the typed phrase (nothing is destroyed) and freezes as the dialog opens, so the
// count it shows is the count the job replays.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Field } from '@/components/ui/field';
import { Callout } from '@/components/ui/callout';
import { Timestamp } from '@/components/ui/timestamp';
import { Modal } from '@/components/dead-letters/modal';
import { confirmationMatches } from '@/server/core/dead-letter-filter';

/** What every frozen-set preview carries. */
export interface FrozenSetPreview {
  id: string;
  total: number;
  /** the phrase to type, e.g. "purge 120" */
  confirmation: string;
  expiresAt: Date;
}

/** A mutation's state as this dialog reads it (a react-query UseMutationResult fits). */
interface Step<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
}

export function FrozenSetDialog<P extends FrozenSetPreview, R>({
  title,
  onClose,
  dismissLabel,
  intro,
  previewLabel,
  preview,
  startPreview,
  apply,
  confirm,
  done,
  nothing,
  noun,
  countTestId,
  span,
  breakdown,
  extra,
  verb,
  typedConfirmation = true,
  autoPreview = false,
  blockedReason = null,
}: {
  title: string;
  onClose: () => void;
  /** the button that leaves the dialog before acting ("Cancel", or "Close" where "Cancel" is the action) */
  dismissLabel: string;
  /** step 1: what will be acted on */
  intro: ReactNode;
  previewLabel: string;
  preview: Step<P>;
  startPreview: () => void;
  apply: Step<R>;
  confirm: (previewId: string, typed: string) => void;
  /** the success message once applied */
  done: (r: R) => ReactNode;
  /** shown when the preview froze nothing */
  nothing: ReactNode;
  /** singular and plural of what is frozen: ['dead letter', 'dead letters'] */
  noun: [string, string];
  countTestId: string;
  /** below the count: the frozen set's time span ("dead between … and …") and its breakdown */
  span: (p: P) => { what: string; from: Date | null; to: Date | null };
  breakdown: (p: P) => { key: string; label: ReactNode; count: number }[];
  /** between the summary and the confirmation (an export link) */
  extra?: (p: P) => ReactNode;
  /** the action's button: ['Purge', 'Purging…'] */
  verb: [string, string];
  /** false: no phrase to type, the button is not a danger button (replay) */
  typedConfirmation?: boolean;
  /** freeze as soon as the dialog opens (step 1 has nothing to choose) */
  autoPreview?: boolean;
  /** why the action cannot start yet (a bad option in `extra`); shown beside the disabled button */
  blockedReason?: string | null;
}) {
  const [typed, setTyped] = useState('');
  const p = preview.data;
  const fe = fieldErrorsOf(apply.error);
  const started = useRef(false);
  useEffect(() => {
    if (autoPreview && !started.current) {
      started.current = true;
      startPreview();
    }
  }, [autoPreview, startPreview]);
  const ready = !typedConfirmation || confirmationMatches(typed, p?.total ?? 0, p?.confirmation);

  return (
    <Modal open title={title} onClose={onClose}>
      {apply.data !== undefined ? (
        <>
          <Callout tone="success">{done(apply.data)}</Callout>
          <div className="flex justify-end">
            <Button variant="primary" onClick={onClose}>
              Close
            </Button>
          </div>
        </>
      ) : !p ? (
        <>
          <p>{intro}</p>
          {preview.error ? <Callout tone="danger">{errorMessage(preview.error)}</Callout> : null}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              {dismissLabel}
            </Button>
            <Button variant="primary" disabled={preview.isPending} onClick={startPreview}>
              {preview.isPending ? 'Freezing…' : previewLabel}
            </Button>
          </div>
        </>
      ) : p.total === 0 ? (
        <>
          <Callout tone="accent">{nothing}</Callout>
          <div className="flex justify-end">
            <Button onClick={onClose}>Close</Button>
          </div>
        </>
      ) : (
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            confirm(p.id, typed);
          }}
        >
          <div className="rounded-md border border-border bg-surface-2 p-3">
            <p className="text-[15px] font-semibold" data-testid={countTestId}>
              {p.total.toLocaleString('en-US')} {p.total === 1 ? noun[0] : noun[1]} frozen
            </p>
            <SpanLine {...span(p)} expiresAt={p.expiresAt} />
            <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-[12px]">
              {breakdown(p).map((i) => (
                <li key={i.key}>
                  {i.label} <span className="text-muted">{i.count.toLocaleString('en-US')}</span>
                </li>
              ))}
            </ul>
          </div>
          {extra?.(p)}
          {typedConfirmation && (
            <Field label={`Type “${p.confirmation}” to confirm`} error={fe.confirm}>
              <Input autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} placeholder={p.confirmation} />
            </Field>
          )}
          {apply.error && !fe.confirm ? <Callout tone="danger">{errorMessage(apply.error)}</Callout> : null}
          <div className="flex flex-wrap items-center justify-end gap-2">
            {blockedReason && (
              <span className="text-[12px] text-danger" data-testid="frozen-set-blocked">
                {blockedReason}
              </span>
            )}
            <Button variant="ghost" onClick={onClose}>
              {dismissLabel}
            </Button>
            <Button type="submit" variant={typedConfirmation ? 'danger' : 'primary'} disabled={apply.isPending || !ready || blockedReason !== null}>
              {apply.isPending ? verb[1] : `${verb[0]} ${p.total.toLocaleString('en-US')}`}
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}

function SpanLine({ what, from, to, expiresAt }: { what: string; from: Date | null; to: Date | null; expiresAt: Date }) {
  return (
    <p className="mt-1 text-[12px] text-muted">
      {what} between <Timestamp date={from} /> and <Timestamp date={to} /> · preview expires <Timestamp date={expiresAt} />
    </p>
  );
}
