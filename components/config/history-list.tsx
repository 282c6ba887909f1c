'use client';
// Config history: versions newest first, each with author, message, time and the diff to
// the version before it. Operators roll back to any older version: the diff of what the
// rollback changes (against the latest) is shown first, and applying creates a new
// version — history is never rewritten. On a task's history the rollback is a per-task
// revert: only that task's definition comes back from the older version, other tasks'
// later edits stay (server/services/task-config.ts rollbackEdit).
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { TRPCClientError } from '@trpc/client';
import type { TaskChangeGroup } from '@/server/core/config-change-view';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge } from '@/components/ui/badge';
import { Button, buttonClass } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { EmptyState } from '@/components/ui/empty-state';
import { Timestamp } from '@/components/ui/timestamp';
import { ApplyReview } from './apply-review';
import { GUARD_STATUS } from './guard-panel';
import { ConfigDiffView } from './config-diff-view';

export function HistoryList({ task, before, canEdit }: { task?: string; before?: number; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { ...(task ? { task } : {}), ...(before ? { before } : {}) };
  const { data } = useSuspenseQuery({ ...trpc.config.history.queryOptions(input), refetchInterval: 10_000 });
  const [rollback, setRollback] = useState<{ to: number; basedOn: number | null; changes: TaskChangeGroup[] } | null>(null);
  const [done, setDone] = useState<{ version: number; to: number } | null>(null);

  const preview = useMutation(trpc.config.previewRollback.mutationOptions({ onSuccess: (r, vars) => setRollback({ to: vars.to, ...r }) }));
  const apply = useMutation(
    trpc.config.rollback.mutationOptions({
      onSuccess: async (r, vars) => {
        setRollback(null);
        setDone({ version: r.version, to: vars.to });
        await Promise.all([queryClient.invalidateQueries(trpc.config.pathFilter()), queryClient.invalidateQueries(trpc.tasks.pathFilter())]);
      },
      onError: () => queryClient.invalidateQueries(trpc.config.pathFilter()),
    }),
  );
  const base = task ? `/tasks/${encodeURIComponent(task)}/history` : '/config/history';

  if (data.versions.length === 0) {
    return (
      <EmptyState title={task ? `No version has changed ${task}` : 'No config versions yet'}>
        Every applied change — from this console or <code className="font-mono">sluice config apply</code> — becomes a numbered version here.
      </EmptyState>
    );
  }

  return (
    <div className="flex flex-col">
      {done && (
        <div className="p-3 pb-0">
          <Callout tone="success">
            {task ? (
              <>
                Reverted: version {done.version} has {task} as it was in version {done.to}; other tasks are unchanged.{' '}
              </>
            ) : (
              <>Rolled back: version {done.version} has the config of version {done.to}. </>
            )}
            <Link href="/coordinators" className="font-medium underline">
              Watch the rollout
            </Link>
          </Callout>
        </div>
      )}
      {preview.error && (
        <div className="p-3 pb-0">
          <Callout tone="danger">{errorMessage(preview.error)}</Callout>
        </div>
      )}
      <ol aria-label="Config versions">
        {data.versions.map((v) => {
          const latest = v.version === data.latest;
          return (
            <li key={v.version} className="border-b border-border p-3 last:border-b-0" data-version={v.version}>
              <div className="mb-2 flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="font-mono text-[14px] font-semibold">v{v.version}</span>
                {latest && <Badge tone="accent">current</Badge>}
                {v.guard && (
                  <span data-testid="version-guard" data-guard-status={v.guard.status}>
                    <Badge tone={GUARD_STATUS[v.guard.status].tone}>
                      {v.guard.status === 'baking' ? `guarded · baking (${v.guard.bakeText})` : `guarded · ${GUARD_STATUS[v.guard.status].label}`}
                      {v.guard.rollbackVersion !== null && ` → v${v.guard.rollbackVersion}`}
                    </Badge>
                  </span>
                )}
                {v.rollbackOf && (
                  <Badge tone="danger">
                    {v.rollbackOf.status === 'aborted' ? `rollback of v${v.rollbackOf.version} (guard aborted)` : `rollback of v${v.rollbackOf.version} by guard`}
                  </Badge>
                )}
                <span className="text-[13px]">{v.message || <span className="text-subtle">(no message)</span>}</span>
                <span className="text-[12px] text-muted">
                  by {v.author} · <Timestamp date={v.createdAt} /> UTC
                  {v.basedOn !== null && v.basedOn !== v.version - 1 && <> · based on v{v.basedOn}</>}
                </span>
                {canEdit && !latest && data.latest !== null && (
                  <Button
                    size="sm"
                    className="ml-auto"
                    disabled={preview.isPending || apply.isPending}
                    onClick={() => {
                      setDone(null);
                      apply.reset();
                      preview.mutate({ to: v.version, basedOn: data.latest!, ...(task ? { task } : {}) });
                    }}
                  >
                    {task ? `Revert ${task} to v${v.version}…` : `Roll back to v${v.version}…`}
                  </Button>
                )}
              </div>
              {rollback?.to === v.version ? (
                <ApplyReview
                  title={
                    task
                      ? `Revert ${task} to its definition in version ${v.version} (other tasks unchanged): what changes against the current version`
                      : `Roll back to version ${v.version}: what changes against the current version`
                  }
                  basedOn={rollback.basedOn}
                  changes={rollback.changes}
                  defaultMessage={task ? `Revert ${task} to version ${v.version}` : `Roll back to version ${v.version}`}
                  applyLabel={`${task ? 'Revert' : 'Roll back'} (new version ${(rollback.basedOn ?? 0) + 1})`}
                  pending={apply.isPending}
                  error={
                    apply.error
                      ? `${errorMessage(apply.error)}${apply.error instanceof TRPCClientError && apply.error.data?.code === 'CONFLICT' ? ' — the list has been refreshed; review again.' : ''}`
                      : undefined
                  }
                  onCancel={() => setRollback(null)}
                  onApply={(message) => apply.mutate({ to: v.version, basedOn: rollback.basedOn ?? v.version, message, ...(task ? { task } : {}) })}
                />
              ) : (
                <ConfigDiffView changes={v.changes} compact collapseWholeTasks />
              )}
            </li>
          );
        })}
      </ol>
      {(before || data.nextBefore) && (
        <nav aria-label="History pages" className="flex items-center justify-between gap-2 border-t border-border p-3">
          {before ? (
            <Link href={base} className={buttonClass('secondary', 'sm')}>
              ← Newest
            </Link>
          ) : (
            <span />
          )}
          {data.nextBefore && (
            <Link href={`${base}?before=${data.nextBefore}`} className={buttonClass('secondary', 'sm')}>
              Older versions →
            </Link>
          )}
        </nav>
      )}
    </div>
  );
}
