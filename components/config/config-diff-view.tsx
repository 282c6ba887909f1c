// A config diff as an operator reads it: one block per task (added / removed / changed),
// one row per field with its label, the value before and the value after.
import type { ChangeRow, TaskChangeGroup } from '@/server/core/config-change-view';
import { Badge } from '@/components/ui/badge';
import { cx } from '@/components/ui/class-names';

const KIND: Record<TaskChangeGroup['kind'], { text: string; tone: 'success' | 'danger' | 'accent' }> = {
  'task-added': { text: 'new task', tone: 'success' },
  'task-removed': { text: 'task removed', tone: 'danger' },
  changed: { text: 'changed', tone: 'accent' },
};

function RowsTable({ rows, compact }: { rows: ChangeRow[]; compact: boolean }) {
  const pad = compact ? 'py-1' : 'py-1.5';
  return (
    <table className="w-full table-fixed border-collapse text-[12px]">
      <thead className="text-left text-[11px] tracking-wide text-muted uppercase">
        <tr className="border-b border-border">
          <th scope="col" className="w-[40%] px-3 py-1 font-semibold">
            Field
          </th>
          <th scope="col" className="w-[24%] px-3 py-1 font-semibold">
            Before
          </th>
          <th scope="col" className="px-3 py-1 font-semibold">
            After
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.path} className="border-b border-border align-top last:border-b-0" data-path={r.path}>
            <td className={cx('px-3 text-muted', pad)} title={r.path}>
              {r.label}
            </td>
            <td className={cx('px-3 font-mono break-all', pad)}>
              {r.before === null ? (
                <span className="text-subtle">—</span>
              ) : (
                <del className="rounded-sm bg-danger-soft px-1 text-danger no-underline" aria-label={`before: ${r.before}`}>
                  {r.before}
                </del>
              )}
            </td>
            <td className={cx('px-3 font-mono break-all', pad)}>
              <span aria-hidden="true" className="mr-2 text-subtle">
                →
              </span>
              {r.after === null ? (
                <span className="text-subtle">removed</span>
              ) : (
                <ins className="rounded-sm bg-success-soft px-1 text-success no-underline" aria-label={`after: ${r.after}`}>
                  {r.after}
                </ins>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * `collapseWholeTasks`: an added or removed task lists every field; in long lists
 * (history) that block starts folded behind its summary.
 */
export function ConfigDiffView({
  changes,
  compact = false,
  collapseWholeTasks = false,
}: {
  changes: TaskChangeGroup[];
  compact?: boolean;
  collapseWholeTasks?: boolean;
}) {
  if (changes.length === 0) return <p className="px-3 py-2 text-[12px] text-subtle">No changes.</p>;
  return (
    <div className="flex flex-col gap-3" data-testid="config-diff">
      {changes.map((g) => (
        <section key={g.task} aria-label={`Changes to ${g.task}`} className="overflow-hidden rounded-md border border-border">
          <header className="flex items-center gap-2 border-b border-border bg-surface-2 px-3 py-1.5">
            <span className="font-mono text-[13px] font-semibold">{g.task}</span>
            <Badge tone={KIND[g.kind].tone}>{KIND[g.kind].text}</Badge>
            <span className="ml-auto text-[11px] text-muted">
              {g.rows.length} field{g.rows.length === 1 ? '' : 's'}
            </span>
          </header>
          {collapseWholeTasks && g.kind !== 'changed' ? (
            <details>
              <summary className="cursor-pointer px-3 py-1.5 text-[12px] text-muted select-none hover:text-fg">
                {g.kind === 'task-added' ? 'Show the new definition' : 'Show the removed definition'}
              </summary>
              <RowsTable rows={g.rows} compact={compact} />
            </details>
          ) : (
            <RowsTable rows={g.rows} compact={compact} />
          )}
        </section>
      ))}
    </div>
  );
}
