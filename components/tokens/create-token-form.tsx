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
import { TOKEN_ROLES, type TokenRole } from '@/server/core/roles';

export function CreateTokenForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<TokenRole>('producer');
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: () => {
        setName('');
        return queryClient.invalidateQueries(trpc.tokens.list.queryFilter());
      },
    }),
  );
  const fields = fieldErrorsOf(create.error);

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name, role });
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-3 border-b border-border p-3" aria-label="Create API token">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-[minmax(0,3fr)_minmax(0,1fr)_auto] md:items-start">
        <Field label="Name" hint="What uses it, e.g. orders-service producer" error={fields.name}>
          <Input autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Role" error={fields.role}>
          <Select value={role} onChange={(e) => setRole(e.target.value as TokenRole)}>
            {TOKEN_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" variant="primary" disabled={create.isPending} className="md:mt-[21px]">
          {create.isPending ? 'Creating…' : 'Create token'}
        </Button>
      </div>
      {create.error && Object.keys(fields).length === 0 && <Callout tone="danger">{errorMessage(create.error)}</Callout>}
      {create.data && (
        <Callout tone="success">
          Created token <strong>{create.data.name}</strong>. Send it as <code className="font-mono">Authorization: Bearer …</code>.
          <OneTimeSecret label="Token" value={create.data.token} />
        </Callout>
      )}
    </form>
  );
}
