// One audit entry's changes, line by line: path, before → after.
import type { DiffLine } from '@/server/presenters/audit-diff';

function show(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

export function AuditDiff({ changes }: { changes: DiffLine[] }) {
  if (changes.length === 0) return <p className="text-[12px] text-subtle">No field changes recorded.</p>;
  return (
    <table className="w-full border-collapse font-mono text-[12px]">
      <caption className="sr-only">Changes</caption>
      <thead>
        <tr className="text-left text-[11px] text-muted">
          <th scope="col" className="w-1/4 py-0.5 pr-3 font-medium">
            Field
          </th>
          <th scope="col" className="py-0.5 pr-3 font-medium">
            Before
          </th>
          <th scope="col" className="py-0.5 font-medium">
            After
          </th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c, i) => (
          <tr key={`${c.path}-${i}`} className="align-top">
            <td className="py-0.5 pr-3 text-muted">{c.path || '(value)'}</td>
            <td className="py-0.5 pr-3 break-all">
              {c.kind !== 'added' && <del className="bg-danger-soft px-1 text-danger no-underline">{show(c.before)}</del>}
            </td>
            <td className="py-0.5 break-all">
              {c.kind !== 'removed' && <ins className="bg-success-soft px-1 text-success no-underline">{show(c.after)}</ins>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
