// "Why is this waiting?": the binding constraint in words (the sentence the REST reply and
// the CLI give too, server/core/why-waiting.ts), every other constraint that holds, and
// links to what holds it (the stream's head, the key's executions, the task).
import Link from 'next/link';
import { describeHold, type WhyWaiting, type WaitingHold } from '@/server/core/why-waiting';
import { Callout } from '@/components/ui/callout';
import { executionsHref } from './execution-search-params';

function HoldLink({ h, task }: { h: WaitingHold; task: string }) {
  switch (h.reason) {
    case 'stream_head':
      return h.headId !== null ? (
        <Link href={`/executions/${h.headId}`} className="text-accent hover:underline">
          open execution {h.headId}
        </Link>
      ) : null;
    case 'group_full':
      return (
        <Link href={executionsHref({ task, group: h.key, state: 'running' })} className="text-accent hover:underline">
          what runs for {h.key}
        </Link>
      );
    case 'rate_limited':
      return (
        <Link href={executionsHref({ task, group: h.key, state: 'running' })} className="text-accent hover:underline">
          what runs for {h.key}
        </Link>
      );
    case 'task_full':
      return (
        <Link href={executionsHref({ task, state: 'running' })} className="text-accent hover:underline">
          what runs now
        </Link>
      );
    case 'task_paused':
    case 'task_inactive':
    case 'circuit_open':
    case 'task_rate_limited':
      return (
        <Link href={`/tasks/${encodeURIComponent(task)}`} className="text-accent hover:underline">
          the task
        </Link>
      );
    case 'no_owner':
      return (
        <Link href="/coordinators" className="text-accent hover:underline">
          coordinators
        </Link>
      );
    default:
      return null;
  }
}

export function WhyWaitingPanel({ why, task }: { why: WhyWaiting; task: string }) {
  if (why.reason === 'not_waiting') return null;
  const claimable = why.holds.length === 0;
  return (
    <section aria-labelledby="why-waiting" className="rounded-lg border border-border bg-surface" data-testid="why-waiting">
      <h2 id="why-waiting" className="border-b border-border px-3 py-2 text-[13px] font-semibold">
        Why is this waiting?
      </h2>
      <div className="p-3">
        <Callout tone={claimable ? 'success' : 'warning'}>
          <span className="font-medium" data-testid="why-waiting-text">
            {why.text}
          </span>
          {!claimable && (
            <>
              {' '}
              <HoldLink h={why.holds[0]!} task={task} />
            </>
          )}
        </Callout>
        {why.holds.length > 1 && (
          <ul className="mt-2 list-disc pl-5 text-[12px] text-muted" aria-label="Also holding it">
            {why.holds.slice(1).map((h, i) => (
              <li key={i}>
                also: {describeHold(h)} <HoldLink h={h} task={task} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
