import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser } from '@/server/api/rsc';
import { SignInForm } from '@/components/auth/sign-in-form';
import { safeNextPath } from '@/server/core/safe-redirect';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  // Only a path on this site, as the browser will read it: never an open redirect.
  const target = safeNextPath(next);
  if (await currentUser()) redirect(target);
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2">
          <svg aria-hidden="true" width="22" height="22" viewBox="0 0 18 18" fill="none">
            <path d="M2 5h14M2 9h9M2 13h5" stroke="var(--accent)" strokeWidth="2" strokeLinecap="round" />
          </svg>
          <span className="text-[18px] font-semibold tracking-tight">Sluice</span>
        </div>
        <div className="rounded-lg border border-border bg-surface p-6 shadow-sm">
          <h1 className="mb-1 text-[16px] font-semibold">Sign in</h1>
          <p className="mb-5 text-[13px] text-muted">to the Sluice control plane</p>
          <SignInForm next={target} />
        </div>
        <p className="mt-4 text-center text-[12px] text-subtle">
          No account? An admin can create one in Settings → Users or with <code className="font-mono">npx sluice users create</code>.
        </p>
      </div>
    </main>
  );
}
