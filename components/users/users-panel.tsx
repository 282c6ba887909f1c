'use client';
// Settings → Users. Everyone signed in sees the list; admins also get the create form,
// role selects and (de)activate / reset-password actions. The server enforces the same
// (adminProcedure); hiding controls here is only so viewers aren't offered what they
// cannot do.
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Select } from '@/components/ui/input';
import { Panel } from '@/components/ui/panel';
import { OneTimeSecret } from '@/components/ui/one-time-secret';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { ROLES, type Role } from '@/server/core/roles';
import { CreateUserForm } from './create-user-form';

export function UsersPanel({ canEdit, currentUserId }: { canEdit: boolean; currentUserId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data: users } = useSuspenseQuery(trpc.users.list.queryOptions());
  const [reset, setReset] = useState<{ email: string; password: string } | null>(null);
  const invalidate = () => queryClient.invalidateQueries(trpc.users.list.queryFilter());
  const update = useMutation(trpc.users.update.mutationOptions({ onSettled: invalidate }));
  const resetPassword = useMutation(
    trpc.users.resetPassword.mutationOptions({
      onSuccess: (r) => setReset(r.generatedPassword ? { email: r.user.email, password: r.generatedPassword } : null),
    }),
  );
  const error = update.error ?? resetPassword.error;

  return (
    <Panel
      title={`Users (${users.length})`}
      labelledBy="users-title"
      actions={!canEdit && <span className="text-[12px] text-muted">Read-only: only admins can change users.</span>}
    >
      {canEdit && <CreateUserForm />}
      {error && (
        <div className="p-3 pb-0">
          <Callout tone="danger">{errorMessage(error)}</Callout>
        </div>
      )}
      {reset && (
        <div className="p-3 pb-0">
          <Callout tone="success">
            New password for <strong>{reset.email}</strong>; their sessions were signed out.
            <OneTimeSecret label="New password" value={reset.password} />
          </Callout>
        </div>
      )}
      <Table>
        <thead>
          <tr>
            <Th>Email</Th>
            <Th className="w-36">Role</Th>
            <Th className="w-28">Status</Th>
            <Th className="w-44">Last sign-in (UTC)</Th>
            <Th className="w-44">Created (UTC)</Th>
            {canEdit && <Th className="w-56 text-right">Actions</Th>}
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <Tr key={u.id}>
              <Td className="font-medium">
                {u.email}
                {u.id === currentUserId && <span className="text-[12px] font-normal text-subtle"> (you)</span>}
              </Td>
              <Td>
                {canEdit ? (
                  <Select
                    aria-label={`Role of ${u.email}`}
                    value={u.role}
                    disabled={update.isPending}
                    onChange={(e) => update.mutate({ id: u.id, role: e.target.value as Role })}
                    className="h-7 min-w-32"
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </Select>
                ) : (
                  <Badge tone={u.role === 'admin' ? 'accent' : 'neutral'}>{u.role}</Badge>
                )}
              </Td>
              <Td>{u.active ? <Badge tone="success">active</Badge> : <Badge tone="danger">deactivated</Badge>}</Td>
              <Td>
                <Timestamp date={u.lastLoginAt} empty="never" />
              </Td>
              <Td>
                <Timestamp date={u.createdAt} />
              </Td>
              {canEdit && (
                <Td className="text-right">
                  <div className="flex justify-end gap-1.5">
                    <Button
                      size="sm"
                      disabled={resetPassword.isPending}
                      onClick={() => {
                        if (window.confirm(`Reset the password of ${u.email}? They will be signed out everywhere.`)) {
                          resetPassword.mutate({ id: u.id });
                        }
                      }}
                    >
                      Reset password
                    </Button>
                    <Button
                      size="sm"
                      variant={u.active ? 'danger' : 'secondary'}
                      disabled={update.isPending}
                      onClick={() => update.mutate({ id: u.id, active: !u.active })}
                    >
                      {u.active ? 'Deactivate' : 'Reactivate'}
                    </Button>
                  </div>
                </Td>
              )}
            </Tr>
          ))}
        </tbody>
      </Table>
    </Panel>
  );
}
