'use client';
// Settings → API tokens: prefix, role, creator, last use; admins create and revoke.
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Panel } from '@/components/ui/panel';
import { EmptyState, Command } from '@/components/ui/empty-state';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { CreateTokenForm } from './create-token-form';

export function TokensPanel({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data: tokens } = useSuspenseQuery(trpc.tokens.list.queryOptions());
  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({ onSettled: () => queryClient.invalidateQueries(trpc.tokens.list.queryFilter()) }),
  );
  const active = tokens.filter((t) => !t.revokedAt).length;

  return (
    <Panel
      title={`API tokens (${active} active)`}
      labelledBy="tokens-title"
      actions={!canEdit && <span className="text-[12px] text-muted">Read-only: only admins can create or revoke tokens.</span>}
    >
      {canEdit && <CreateTokenForm />}
      {revoke.error && (
        <div className="p-3 pb-0">
          <Callout tone="danger">{errorMessage(revoke.error)}</Callout>
        </div>
      )}
      {tokens.length === 0 ? (
        <EmptyState title="No API tokens">
          Producers and coordinators authenticate with a token. Create one here or with{' '}
          <Command>npx sluice tokens create --name orders --role producer</Command>.
        </EmptyState>
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>Name</Th>
              <Th className="w-44">Token</Th>
              <Th className="w-28">Role</Th>
              <Th className="w-48">Created by</Th>
              <Th className="w-44">Created (UTC)</Th>
              <Th className="w-44">Last used (UTC)</Th>
              <Th className="w-28">Status</Th>
              {canEdit && <Th className="w-24 text-right">Actions</Th>}
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <Tr key={t.id} className={t.revokedAt ? 'text-muted' : undefined}>
                <Td className="font-medium">{t.name}</Td>
                <Td className="font-mono text-[12px]">{t.display}</Td>
                <Td>
                  <Badge>{t.role}</Badge>
                </Td>
                <Td>{t.createdBy ?? <span className="text-subtle">cli / deleted user</span>}</Td>
                <Td>
                  <Timestamp date={t.createdAt} />
                </Td>
                <Td>
                  <Timestamp date={t.lastUsedAt} empty="never" />
                </Td>
                <Td>{t.revokedAt ? <Badge tone="danger">revoked</Badge> : <Badge tone="success">active</Badge>}</Td>
                {canEdit && (
                  <Td className="text-right">
                    {!t.revokedAt && (
                      <Button
                        size="sm"
                        variant="danger"
                        disabled={revoke.isPending}
                        onClick={() => {
                          if (window.confirm(`Revoke "${t.name}"? Anything using it stops working at once.`)) revoke.mutate({ id: t.id });
                        }}
                      >
                        Revoke
                      </Button>
                    )}
                  </Td>
                )}
              </Tr>
            ))}
          </tbody>
        </Table>
      )}
    </Panel>
  );
}
