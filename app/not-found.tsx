// An address no route matches. Outside the console shell (it may come before sign-in); the
// links lead back in (the console redirects to sign-in when needed).
import type { Metadata } from 'next';
import { NotFoundPanel } from '@/components/shell/not-found-panel';

export const metadata: Metadata = { title: 'Not found' };

export default function NotFound() {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4">
      <NotFoundPanel />
    </main>
  );
}
