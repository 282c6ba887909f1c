'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { OneTimeSecret } from '@/components/ui/one-time-secret';
import { ROLES, type Role } from '@/server/core/roles';

export function CreateUserForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [password, setPassword] = useState('');
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: () => {
        setEmail('');
        setPassword('');
        return queryClient.invalidateQueries(trpc.users.list.queryFilter());
      },
    }),
  );
  const fields = fieldErrorsOf(create.error);

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ email, role, ...(password ? { password } : {}) });
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-3 border-b border-border p-3" aria-label="Create user">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,2fr)_auto] md:items-start">
        <Field label="Email" error={fields.email}>
          <Input type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Role" error={fields.role}>
          <Select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Initial password" hint="Leave empty to generate one" error={fields.password}>
          <Input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <Button type="submit" variant="primary" disabled={create.isPending} className="md:mt-[21px]">
          {create.isPending ? 'Creating…' : 'Create user'}
        </Button>
      </div>
      {create.error && Object.keys(fields).length === 0 && <Callout tone="danger">{errorMessage(create.error)}</Callout>}
      {create.data && (
        <Callout tone="success">
          Created <strong>{create.data.user.email}</strong> as {create.data.user.role}.
          {create.data.generatedPassword && (
            <OneTimeSecret label="Generated password" value={create.data.generatedPassword} />
          )}
        </Callout>
      )}
    </form>
  );
}
