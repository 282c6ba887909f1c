// The console frame: skip link, sidebar (brand, sections, who is signed in, theme,
// sign out) and the main landmark every page renders into. Below the md breakpoint (a
// phone) the sidebar is a bar across the top with a Menu button (NavDrawer) that opens
// the sections, so a page gets the whole width.
import type { ReactNode } from 'react';
import type { SessionUser } from '@/server/core/roles';
import { Badge } from '@/components/ui/badge';
import { SideNav } from './side-nav';
import { ThemeToggle } from './theme-toggle';
import { SignOutButton } from './sign-out-button';
import { NavDrawer } from './nav-drawer';
import type { ThemeChoice } from './theme';

export function AppShell({ user, theme, children }: { user: SessionUser; theme: ThemeChoice; children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-accent focus:px-3 focus:py-2 focus:text-accent-fg"
      >
        Skip to content
      </a>
      <aside className="flex w-full shrink-0 flex-col bg-nav-bg md:sticky md:top-0 md:h-screen md:w-52">
        <NavDrawer
          brand={
            <span className="flex items-center gap-2">
              <svg aria-hidden="true" width="18" height="18" viewBox="0 0 18 18" fill="none">
                <path d="M2 5h14M2 9h9M2 13h5" stroke="#4d8dff" strokeWidth="2" strokeLinecap="round" />
              </svg>
              <span className="text-[14px] font-semibold tracking-tight text-nav-fg-active">Sluice</span>
            </span>
          }
        >
        <SideNav />
        <div className="flex flex-row flex-wrap items-center gap-0.5 border-t border-white/5 px-2 py-1 md:flex-col md:items-stretch md:py-3">
          <div className="w-full px-2.5 pb-1.5 md:block">
            <p className="truncate text-[12px] text-nav-fg-active" title={user.email}>
              {user.email}
            </p>
            <div className="mt-1">
              <Badge tone="accent">{user.role}</Badge>
            </div>
          </div>
          <ThemeToggle initial={theme} />
          <SignOutButton />
        </div>
        </NavDrawer>
      </aside>
      <main id="main" tabIndex={-1} className="min-w-0 flex-1 px-3 py-4 outline-none md:px-6 md:py-5">
        {children}
      </main>
    </div>
  );
}
