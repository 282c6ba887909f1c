// Everything behind sign-in. The session is checked here on every request (there is no
// proxy/middleware in front), and every procedure checks it again.
import type { ReactNode } from 'react';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { currentUser, replicaConfigured } from '@/server/api/rsc';
import { ReplicaLagNotice } from '@/components/shell/replica-lag-notice';
import { AppShell } from '@/components/shell/app-shell';
import { parseTheme, THEME_COOKIE } from '@/components/shell/theme';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <AppShell user={user} theme={theme}>
      {replicaConfigured() && <ReplicaLagNotice />}
      {children}
    </AppShell>
  );
}
