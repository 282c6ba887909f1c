// The head of a page about one record (an execution, a dead letter): the trail back to its
// list, the title, a one-line description that starts with the task, and the actions; and
// the load of the record by the path's id, a 404 for an id that is not one or not found.
// Server components only.
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { PageHeader } from './page-header';

/** The record for a path id, or the 404 page (not a number, or the procedure says NOT_FOUND / BAD_REQUEST). */
export async function detailOr404<T>(rawId: string, load: (id: number) => Promise<T>): Promise<T> {
  if (!/^\d{1,15}$/.test(rawId)) notFound();
  try {
    return await load(Number(rawId));
  } catch (e) {
    if (e instanceof TRPCError && (e.code === 'NOT_FOUND' || e.code === 'BAD_REQUEST')) notFound();
    throw e;
  }
}

export function DetailPageHeader({
  list,
  id,
  title,
  task,
  children,
  actions,
}: {
  /** the list this record belongs to: the trail's first step */
  list: { label: string; href: string };
  id: number;
  title: string;
  task: string;
  /** the description after the task */
  children: React.ReactNode;
  actions?: React.ReactNode;
}) {
  return (
    <>
      <nav className="mb-2 text-[12px] text-muted">
        <Link href={list.href} className="hover:underline">
          {list.label}
        </Link>{' '}
        / {id}
      </nav>
      <PageHeader
        title={title}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <span className="font-mono">{task}</span>
            {children}
          </span>
        }
        actions={actions}
      />
    </>
  );
}
