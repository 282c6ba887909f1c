import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { cookies } from 'next/headers';
import { TRPCReactProvider } from '@/components/trpc/trpc-provider';
import { parseTheme, THEME_COOKIE } from '@/components/shell/theme';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Sluice', template: '%s · Sluice' },
  description: 'Bounded-concurrency work on Postgres',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={theme === 'system' ? undefined : theme} suppressHydrationWarning>
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
