'use client';
// Pause / resume a task: a new config version (applied onto the latest, so it never
// overwrites anyone's edit). Used in the list and in the editor header.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';

export function PauseToggle({
  task,
  paused,
  disabled,
  disabledReason,
  onApplied,
  size = 'sm',
}: {
  task: string;
  paused: boolean;
  disabled?: boolean;
  disabledReason?: string;
  onApplied?: (version: number) => void;
  size?: 'sm' | 'md';
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const m = useMutation(
    trpc.tasks.setPaused.mutationOptions({
      onSuccess: async (r) => {
        await Promise.all([
          queryClient.invalidateQueries(trpc.tasks.pathFilter()),
          queryClient.invalidateQueries(trpc.config.pathFilter()),
        ]);
        onApplied?.(r.version);
      },
    }),
  );
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        size={size}
        variant={paused ? 'primary' : 'secondary'}
        disabled={disabled || m.isPending}
        title={disabled ? disabledReason : paused ? `Resume ${task}: coordinators start claiming again` : `Pause ${task}: no new claims; running executions finish`}
        aria-label={`${paused ? 'Resume' : 'Pause'} ${task}`}
        onClick={() => m.mutate({ task, paused: !paused })}
      >
        {m.isPending ? (paused ? 'Resuming…' : 'Pausing…') : paused ? 'Resume' : 'Pause'}
      </Button>
      {m.error && (
        <span role="alert" className="text-[12px] text-danger">
          {errorMessage(m.error)}
        </span>
      )}
    </span>
  );
}
