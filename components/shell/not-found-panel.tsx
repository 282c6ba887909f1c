// What a wrong address shows: a plain statement and the ways back, in the console's style
// (Next's default 404 is an unstyled page with no way back). Used inside the console shell
// (a task, dead letter or page that does not exist) and for addresses outside any route.
import Link from 'next/link';

const WAYS_BACK = [
  { href: '/', label: 'Overview' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/dead-letters', label: 'Dead letters' },
  { href: '/alerts', label: 'Alerts' },
];

export function NotFoundPanel({ what = 'page' }: { what?: string }) {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <p className="font-mono text-[13px] text-subtle">404</p>
      <h1 className="mt-1 text-[20px] font-semibold">Not found</h1>
      <p className="mt-2 text-[13px] text-muted">
        There is no {what} at this address. It may have been deleted or renamed, or the link may be mistyped.
      </p>
      <nav aria-label="Ways back" className="mt-5 flex flex-wrap justify-center gap-2">
        {WAYS_BACK.map((w) => (
          <Link key={w.href} href={w.href} className="rounded-md border border-border bg-surface px-3 py-1.5 text-[13px] hover:border-border-strong">
            {w.label}
          </Link>
        ))}
      </nav>
    </div>
  );
}
