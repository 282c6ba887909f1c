'use client';
// Below the md breakpoint (a phone) the sidebar collapses to the brand bar and a Menu
// button naming the current section; the sections, who is signed in, theme and sign-out
// open under it and close again on navigation. From md up everything is always shown.
import { useEffect, useState, type ReactNode } from 'react';
import { usePathname } from 'next/navigation';
import { cx } from '@/components/ui/class-names';
import { NAV_ITEMS, isActive } from './nav-items';

export function NavDrawer({ brand, children }: { brand: ReactNode; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  useEffect(() => setOpen(false), [pathname]);
  const current = NAV_ITEMS.find((i) => isActive(pathname, i.href))?.label ?? 'Menu';
  return (
    <>
      <div className="flex h-12 items-center justify-between gap-2 border-b border-white/5 px-4">
        {brand}
        <button
          type="button"
          className="inline-flex items-center gap-2 rounded-md border border-white/10 px-2.5 py-1 text-[13px] text-nav-fg-active md:hidden"
          aria-expanded={open}
          aria-controls="console-nav"
          data-testid="nav-toggle"
          onClick={() => setOpen((o) => !o)}
        >
          <span>{current}</span>
          <svg aria-hidden="true" width="14" height="14" viewBox="0 0 14 14" fill="none">
            {open ? (
              <path d="M3 3l8 8M11 3l-8 8" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
            ) : (
              <path d="M2 4h10M2 7h10M2 10h10" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
            )}
          </svg>
          <span className="sr-only">{open ? 'Close menu' : 'Open menu'}</span>
        </button>
      </div>
      <div id="console-nav" className={cx('flex-1 flex-col md:flex', open ? 'flex' : 'hidden')} data-testid="nav-panel">
        {children}
      </div>
    </>
  );
}
