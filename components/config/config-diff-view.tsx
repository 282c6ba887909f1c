// A config diff as an operator reads it: one block per task (added / removed / changed),
// one row per field with its label, the value before and the value after.
import type { TaskChangeGroup } from '@/server/core/config-change-view';
import { Badge } from '@/components/ui/badge';
import { cx } from '@/components/ui/class-names';

const KIND: Record<TaskChangeGroup['kind'], { text: string; tone: 'success' | 'danger' | 'accent' }> = {
  'task-added': { text: 'new task', tone: 'success' },
  'task-removed': { text: 'task removed', tone: 'danger' },
  changed: { text: 'changed', tone: 'accent' },
};

export function ConfigDiffView({ changes, compact = false }: { changes: TaskChangeGroup[]; compact?: boolean }) {
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
          <table className="w-full border-collapse text-[12px]">
            <thead className="sr-only">
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {g.rows.map((r) => (
                <tr key={r.path} className="border-b border-border last:border-b-0 align-top" data-path={r.path}>
                  <td className={cx('w-[38%] px-3 text-muted', compact ? 'py-1' : 'py-1.5')} title={r.path}>
                    {r.label}
                  </td>
                  <td className={cx('w-[31%] px-3 font-mono break-all', compact ? 'py-1' : 'py-1.5')}>
                    {r.before === null ? (
                      <span className="text-subtle">—</span>
                    ) : (
                      <del className="rounded-sm bg-danger-soft px-1 text-danger no-underline" aria-label={`before: ${r.before}`}>
                        {r.before}
                      </del>
                    )}
                  </td>
                  <td className={cx('px-3 font-mono break-all', compact ? 'py-1' : 'py-1.5')}>
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
        </section>
      ))}
    </div>
  );
}
