// The header links between a task's pages (editor, metrics, keys, streams), less the
// page they are on.
import Link from 'next/link';
import { keysViewHref, streamsViewHref } from '@/server/core/key-views';
import { buttonClass } from '@/components/ui/button';

type TaskPage = 'edit' | 'metrics' | 'keys' | 'streams';

export function TaskViewLinks({ task, current }: { task: string; current: TaskPage }) {
  const t = encodeURIComponent(task);
  const links: [TaskPage, string, string][] = [
    ['edit', `/tasks/${t}`, 'Edit task'],
    ['metrics', `/tasks/${t}/metrics`, 'Metrics'],
    ['keys', keysViewHref(task), 'Keys'],
    ['streams', streamsViewHref(task), 'Streams'],
  ];
  return (
    <>
      {links
        .filter(([page]) => page !== current)
        .map(([page, href, label]) => (
          <Link key={page} href={href} className={buttonClass('secondary')}>
            {label}
          </Link>
        ))}
    </>
  );
}
