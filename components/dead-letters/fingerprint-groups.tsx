// Dead letters grouped by error fingerprint, under the current filter: count, not yet
// replayed, first and last seen, tasks, the newest error. A row narrows the list to it.
import Link from 'next/link';
import type { DeadLetterFilter } from '@/server/core/dead-letter-filter';
import type { FingerprintGroups as Groups } from '@/server/presenters/dead-letters';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { deadLettersHref } from './dead-letter-search-params';

export function FingerprintGroups({ groups, sampledNewest, filter }: { groups: Groups['groups']; sampledNewest: number | null; filter: DeadLetterFilter }) {
  if (groups.length === 0) return null;
  const max = Math.max(...groups.map((g) => g.count));
  return (
    <Panel
      title={
        <span>
          By error fingerprint
          {sampledNewest !== null && <span className="ml-2 font-normal text-muted">counted over the newest {sampledNewest.toLocaleString('en-US')} matching</span>}
        </span>
      }
      className="mb-4"
      actions={filter.fingerprint ? <Link href={deadLettersHref({ ...filter, fingerprint: undefined })} className="text-[12px] text-accent hover:underline">All fingerprints</Link> : undefined}
    >
      <Table>
        <thead>
          <tr>
            <Th className="w-40">Fingerprint</Th>
            <Th className="w-44">Count</Th>
            <Th className="w-24 text-right">Pending</Th>
            <Th className="w-44">First seen</Th>
            <Th className="w-44">Last seen</Th>
            <Th className="w-40">Tasks</Th>
            <Th>Newest error</Th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <Tr key={g.fingerprint} data-testid={`fingerprint-${g.fingerprint}`} className={filter.fingerprint === g.fingerprint ? 'bg-accent-soft/40' : ''}>
              <Td className="font-mono text-[12px]">
                <Link href={deadLettersHref({ ...filter, fingerprint: g.fingerprint })} className="text-accent hover:underline" aria-label={`Filter by fingerprint ${g.fingerprint}`}>
                  {g.fingerprint || '(none)'}
                </Link>
              </Td>
              <Td>
                <span className="flex items-center gap-2">
                  <span className="w-14 text-right font-mono text-[12px] tabular-nums">{g.count.toLocaleString('en-US')}</span>
                  <span className="h-1.5 flex-1 rounded-full bg-surface-2">
                    <span className="block h-full rounded-full bg-danger/70" style={{ width: `${Math.max(2, (g.count / max) * 100)}%` }} />
                  </span>
                </span>
              </Td>
              <Td className="text-right font-mono text-[12px] tabular-nums">{g.pending.toLocaleString('en-US')}</Td>
              <Td>
                <Timestamp date={g.firstSeen} />
              </Td>
              <Td>
                <Timestamp date={g.lastSeen} />
              </Td>
              <Td className="max-w-0 truncate font-mono text-[12px] text-muted" title={g.tasks.join(', ')}>
                {g.tasks.join(', ')}
              </Td>
              <Td className="max-w-0 truncate font-mono text-[12px]" title={g.sampleError}>
                {g.sampleError}
              </Td>
            </Tr>
          ))}
        </tbody>
      </Table>
    </Panel>
  );
}
