'use client';
// Settings → Webhooks: where alert notifications go. Admins add, enable/disable, test and
// remove targets; operators see them and the delivery log (every attempt, its HTTP
// status or error, and when the next retry is due).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { Panel } from '@/components/ui/panel';
import { Badge } from '@/components/ui/badge';
import { EmptyState } from '@/components/ui/empty-state';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';

function CreateWebhookForm() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [minSeverity, setMinSeverity] = useState<'warning' | 'critical'>('warning');
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: () => {
        setName('');
        setUrl('');
        setSecret('');
        return qc.invalidateQueries(trpc.webhooks.pathFilter());
      },
    }),
  );
  const fields = fieldErrorsOf(create.error);
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name, url, minSeverity, ...(secret ? { secret } : {}) });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Add webhook" className="flex flex-col gap-3 border-b border-border p-3">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-[minmax(0,2fr)_minmax(0,4fr)_minmax(0,3fr)_minmax(0,2fr)_auto] md:items-start">
        <Field label="Name" error={fields.name}>
          <Input autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} placeholder="on-call pager" />
        </Field>
        <Field label="URL" hint="Receives a POST with a JSON body" error={fields.url}>
          <Input autoComplete="off" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/sluice" />
        </Field>
        <Field label="Signing secret" hint="Optional; signs X-Sluice-Signature" error={fields.secret}>
          <Input type="password" autoComplete="new-password" value={secret} onChange={(e) => setSecret(e.target.value)} />
        </Field>
        <Field label="Notify from">
          <Select value={minSeverity} onChange={(e) => setMinSeverity(e.target.value as 'warning' | 'critical')}>
            <option value="warning">warning</option>
            <option value="critical">critical only</option>
          </Select>
        </Field>
        <Button type="submit" variant="primary" disabled={create.isPending} className="md:mt-[21px]">
          {create.isPending ? 'Adding…' : 'Add webhook'}
        </Button>
      </div>
      {create.error && Object.keys(fields).length === 0 && <Callout tone="danger">{errorMessage(create.error)}</Callout>}
    </form>
  );
}

function TargetActions({ id, name, enabled }: { id: string; name: string; enabled: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const done = { onSuccess: () => qc.invalidateQueries(trpc.webhooks.pathFilter()) };
  const update = useMutation(trpc.webhooks.update.mutationOptions(done));
  const test = useMutation(trpc.webhooks.test.mutationOptions(done));
  const remove = useMutation(trpc.webhooks.delete.mutationOptions(done));
  const error = update.error ?? test.error ?? remove.error;
  return (
    <span className="flex flex-wrap items-center justify-end gap-1.5">
      <Button size="sm" variant="ghost" disabled={!enabled || test.isPending} onClick={() => test.mutate({ id })}>
        {test.isPending ? 'Queuing…' : test.isSuccess ? 'Test queued' : 'Send test'}
      </Button>
      <Button size="sm" disabled={update.isPending} onClick={() => update.mutate({ id, enabled: !enabled })}>
        {enabled ? 'Disable' : 'Enable'}
      </Button>
      <Button
        size="sm"
        variant="danger"
        disabled={remove.isPending}
        onClick={() => {
          if (window.confirm(`Remove webhook "${name}"? Its delivery log goes with it.`)) remove.mutate({ id });
        }}
      >
        Remove
      </Button>
      {error && (
        <span role="alert" className="text-[12px] text-danger">
          {errorMessage(error)}
        </span>
      )}
    </span>
  );
}

const STATUS_TONE = { pending: 'warning', delivered: 'success', failed: 'danger' } as const;

export function WebhooksPanel({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const targets = useQuery(trpc.webhooks.list.queryOptions());
  const log = useQuery({ ...trpc.webhooks.deliveries.queryOptions({ limit: 50 }), refetchInterval: 10_000 });
  return (
    <div className="flex flex-col gap-4">
      <Panel title="Webhook targets" labelledBy="webhook-targets">
        {canEdit && <CreateWebhookForm />}
        {targets.error && (
          <div className="p-3">
            <Callout tone="danger">{targets.error.message}</Callout>
          </div>
        )}
        {targets.data && targets.data.length === 0 && (
          <EmptyState title="No webhooks">
            Alert notifications (fired, escalated, resolved) are POSTed as JSON to each enabled target, retried with backoff.
            {!canEdit && ' An admin can add one.'}
          </EmptyState>
        )}
        {targets.data && targets.data.length > 0 && (
          <Table data-testid="webhook-targets">
            <thead>
              <tr>
                <Th>Name</Th>
                <Th>URL</Th>
                <Th>Notifies</Th>
                <Th>Signed</Th>
                <Th>Status</Th>
                {canEdit && <Th className="text-right">Actions</Th>}
              </tr>
            </thead>
            <tbody>
              {targets.data.map((t) => (
                <Tr key={t.id}>
                  <Td className="font-medium">{t.name}</Td>
                  <Td className="max-w-md truncate font-mono text-[12px]" title={t.url}>
                    {t.url}
                  </Td>
                  <Td>{t.minSeverity === 'critical' ? 'critical only' : 'warning and critical'}</Td>
                  <Td>{t.hasSecret ? 'HMAC-SHA256' : <span className="text-subtle">no</span>}</Td>
                  <Td>{t.enabled ? <Badge tone="success">Enabled</Badge> : <Badge>Disabled</Badge>}</Td>
                  {canEdit && (
                    <Td className="text-right">
                      <TargetActions id={t.id} name={t.name} enabled={t.enabled} />
                    </Td>
                  )}
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </Panel>
      <Panel title="Delivery log" labelledBy="webhook-log" actions={<span className="text-[12px] text-muted">newest 50 · kept 30 days</span>}>
        {log.data && log.data.length === 0 && <EmptyState title="Nothing sent yet" />}
        {log.data && log.data.length > 0 && (
          <Table data-testid="webhook-deliveries">
            <thead>
              <tr>
                <Th>Queued</Th>
                <Th>Target</Th>
                <Th>Event</Th>
                <Th>Status</Th>
                <Th className="text-right">Attempts</Th>
                <Th>Last response</Th>
                <Th>Next try</Th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((d) => (
                <Tr key={d.id}>
                  <Td>
                    <Timestamp date={d.createdAt} />
                  </Td>
                  <Td>{d.targetName}</Td>
                  <Td className="font-mono text-[12px]">
                    {d.event}
                    {d.alertId !== null && <span className="text-subtle"> #{d.alertId}</span>}
                  </Td>
                  <Td>
                    <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
                  </Td>
                  <Td className="text-right font-mono tabular-nums">
                    {d.attempts}/{d.maxAttempts}
                  </Td>
                  <Td className="max-w-xs truncate text-[12px]" title={d.lastError ?? undefined}>
                    {d.responseStatus !== null ? <span className="font-mono">HTTP {d.responseStatus}</span> : null}
                    {d.lastError && d.responseStatus === null && <span className="text-danger">{d.lastError}</span>}
                    {d.durationMs !== null && <span className="text-subtle"> · {d.durationMs} ms</span>}
                    {d.attempts === 0 && <span className="text-subtle">not tried yet</span>}
                  </Td>
                  <Td>{d.nextAttemptAt ? <Timestamp date={d.nextAttemptAt} /> : <span className="text-subtle">—</span>}</Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </Panel>
    </div>
  );
}
