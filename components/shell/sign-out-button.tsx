'use client';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';

export function SignOutButton() {
  const trpc = useTRPC();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      // A full navigation drops every cached query of the old session.
      onSuccess: () => window.location.assign('/login'),
    }),
  );
  return (
    <button
      type="button"
      onClick={() => signOut.mutate()}
      disabled={signOut.isPending}
      className="rounded-md px-2.5 py-1.5 text-left text-[12px] text-nav-fg hover:bg-nav-active/60 hover:text-nav-fg-active"
    >
      {signOut.isPending ? 'Signing out…' : 'Sign out'}
    </button>
  );
}
