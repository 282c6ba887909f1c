// The footer of a keyset-paged view: back to the first page, and on to the next.
import Link from 'next/link';
import { buttonClass } from '@/components/ui/button';

export function Pager({ firstHref, nextHref, firstLabel, nextLabel }: { firstHref: string | null; nextHref: string | null; firstLabel: string; nextLabel: string }) {
  if (!firstHref && !nextHref) return null;
  return (
    <footer className="flex items-center justify-between gap-2 border-t border-border px-3 py-2">
      {firstHref ? (
        <Link href={firstHref} className={buttonClass('secondary', 'sm')}>
          ← {firstLabel}
        </Link>
      ) : (
        <span />
      )}
      {nextHref && (
        <Link href={nextHref} className={buttonClass('secondary', 'sm')} data-testid="pager-next">
          {nextLabel} →
        </Link>
      )}
    </footer>
  );
}
