'use client';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';

export function SignInForm({ next }: { next: string }) {
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      // Full navigation: the console's server components read the new cookie.
      onSuccess: () => window.location.assign(next),
    }),
  );
  const fields = fieldErrorsOf(signIn.error);

  function submit(e: FormEvent) {
    e.preventDefault();
    signIn.mutate({ email, password });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-3.5" noValidate>
      {signIn.error && <Callout tone="danger">{errorMessage(signIn.error)}</Callout>}
      <Field label="Email" error={fields.email}>
        <Input type="email" name="email" autoComplete="username" autoFocus required value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Field label="Password" error={fields.password}>
        <Input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      <Button type="submit" variant="primary" disabled={signIn.isPending || signIn.isSuccess} className="mt-1 w-full">
        {signIn.isPending || signIn.isSuccess ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  );
}
