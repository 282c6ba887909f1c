import type { Metadata } from 'next';
import Link from 'next/link';
import { TRPCError } from '@trpc/server';
import { serverCaller } from '@/server/api/rsc';
import type { AuditPage } from '@/server/presenters/audit';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Callout } from '@/components/ui/callout';
import { buttonClass } from '@/components/ui/button';
import { AuditFilters } from '@/components/audit/audit-filters';
import { AuditTable } from '@/components/audit/audit-table';
import { auditHref, auditInputFromSearchParams, type AuditSearchParams } from '@/components/audit/audit-search-params';

export const metadata: Metadata = { title: 'Audit' };

export default async function AuditLogPage({ searchParams }: { searchParams: Promise<AuditSearchParams> }) {
  const sp = await searchParams;
  const { input, invalid } = auditInputFromSearchParams(sp);
  let page: AuditPage | null = null;
  let problem: string | null = invalid.length ? invalid.join('; ') : null;
  if (!problem) {
    try {
      page = await (await serverCaller()).audit.list(input);
    } catch (e) {
      if (!(e instanceof TRPCError) || e.code !== 'BAD_REQUEST') throw e;
      problem = e.message;
    }
  }
  return (
    <>
      <PageHeader title="Audit" description="Every change, by whom, when, and what it changed — newest first." />
      <Panel>
        <AuditFilters sp={sp} />
        {problem && (
          <div className="p-3">
            <Callout tone="danger">{problem}</Callout>
          </div>
        )}
        {page && <AuditTable entries={page.entries} />}
        {page && (input.cursor || page.nextCursor) && (
          <nav aria-label="Audit pages" className="flex items-center justify-between gap-2 p-3">
            {input.cursor ? (
              <Link href={auditHref(sp)} className={buttonClass('secondary', 'sm')}>
                ← Newest
              </Link>
            ) : (
              <span />
            )}
            {page.nextCursor && (
              <Link href={auditHref(sp, page.nextCursor)} className={buttonClass('secondary', 'sm')}>
                Older entries →
              </Link>
            )}
          </nav>
        )}
      </Panel>
    </>
  );
}
