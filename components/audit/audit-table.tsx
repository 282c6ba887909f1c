// Audit entries as a dense table; each row's changes expand in place (<details>, no JS).
import Link from 'next/link';
import type { AuditEntryView } from '@/server/presenters/audit';
import { Badge, type Tone } from '@/components/ui/badge';
import { EmptyState } from '@/components/ui/empty-state';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { AuditDiff } from './audit-diff';

const ACTOR_TONES: Record<AuditEntryView['actor']['type'], Tone> = {
  user: 'accent',
  token: 'warning',
  cli: 'neutral',
  system: 'neutral',
};

function summary(e: AuditEntryView): string {
  const c = e.changes;
  if (c.length === 0) return '';
  if (!e.before) return `${c.length} field${c.length === 1 ? '' : 's'} set`;
  const first = c
    .slice(0, 2)
    .map((l) => `${l.path || 'value'}: ${JSON.stringify(l.before ?? null)} → ${JSON.stringify(l.after ?? null)}`)
    .join(', ');
  return c.length > 2 ? `${first}, +${c.length - 2} more` : first;
}

/** The config version an entry made (config.apply, or a task's pause / resume / revert), for a link. */
function versionOf(e: AuditEntryView): number | null {
  const v = e.target.type === 'config' ? Number(e.target.id) : (e.meta as { version?: unknown } | null)?.version;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

export function AuditTable({ entries, compact = false }: { entries: AuditEntryView[]; compact?: boolean }) {
  if (entries.length === 0) return <EmptyState title="No audit entries match">Changes made anywhere — UI, CLI, API — are recorded here.</EmptyState>;
  return (
    <Table>
      <thead>
        <tr>
          <Th className="w-44">Time (UTC)</Th>
          <Th className="w-64">Actor</Th>
          <Th className="w-44">Action</Th>
          <Th className="w-56">Target</Th>
          <Th>Changes</Th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <Tr key={e.id} className="align-top">
            <Td className="align-top">
              <Timestamp date={e.at} />
            </Td>
            <Td className="align-top">
              <span className="flex items-center gap-1.5 whitespace-nowrap">
                <Badge tone={ACTOR_TONES[e.actor.type]}>{e.actor.type}</Badge>
                <span className="truncate" title={e.actor.label}>
                  {e.actor.label}
                </span>
              </span>
            </Td>
            <Td className="align-top font-mono text-[12px]">{e.action}</Td>
            <Td className="align-top">
              <span className="text-muted">{e.target.type}</span>
              {e.target.id && e.target.type !== 'config' && (
                <span className="ml-1 font-mono text-[12px] whitespace-nowrap" title={e.target.id}>
                  {e.target.id.length > 13 ? `${e.target.id.slice(0, 8)}…` : e.target.id}
                </span>
              )}
              {versionOf(e) !== null && (
                <Link className="ml-1 font-mono text-[12px] whitespace-nowrap text-accent hover:underline" href={`/config/history?before=${versionOf(e)! + 1}`} title="The config version it made">
                  v{versionOf(e)}
                </Link>
              )}
            </Td>
            <Td className="align-top">
              {compact || (e.changes.length === 0 && e.meta == null) ? (
                <span className="text-[12px] text-muted">{summary(e)}</span>
              ) : (
                <details className="group">
                  <summary className="cursor-pointer text-[12px] text-muted select-none hover:text-fg">
                    {summary(e) || 'request details'}
                  </summary>
                  <div className="mt-2 flex flex-col gap-2 rounded-md border border-border bg-surface-2 p-2">
                    <AuditDiff changes={e.changes} />
                    {e.meta != null && (
                      <pre className="font-mono text-[11px] break-all whitespace-pre-wrap text-muted">{JSON.stringify(e.meta, null, 2)}</pre>
                    )}
                  </div>
                </details>
              )}
            </Td>
          </Tr>
        ))}
      </tbody>
    </Table>
  );
}
