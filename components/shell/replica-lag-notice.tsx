'use client';
// With a read replica (DATABASE_REPLICA_URL), lists and charts read from it: while it is
// further behind than the charts' own roll-up delay, every page says so, since a list just
// acted on may not show the action yet. Rendered only when a replica is configured.
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { Callout } from '@/components/ui/callout';
import { formatDuration } from '@/components/charts/chart-format';

const POLL_MS = 10_000;

export function replicaBehind(lag: { lagMs: number; dataDelayMs: number | null } | null | undefined): boolean {
  return !!lag && lag.lagMs > 0 && lag.lagMs > (lag.dataDelayMs ?? 0);
}

export function ReplicaLagNotice() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.metrics.replicaLag.queryOptions(), refetchInterval: POLL_MS });
  const lag = q.data;
  if (!lag) return null;
  if (!lag.inRecovery) {
    return (
      <Callout tone="warning" className="mb-3">
        DATABASE_REPLICA_URL names a server that is not a replica (not in recovery): lists and charts read from it as if it were one.
      </Callout>
    );
  }
  if (!replicaBehind(lag)) return null;
  return (
    <Callout tone="warning" className="mb-3">
      <span data-testid="replica-lag">
        Lists and charts read from a replica that is {formatDuration(lag.lagMs)} behind the primary
        {lag.dataDelayMs !== null ? ` (charts alone lag ${formatDuration(lag.dataDelayMs)})` : ''}: a change you just made may not show here yet.
      </span>
    </Callout>
  );
}
