// How a frozen set of dead letters (a purge's or a replay's preview) is summed up in the
// shared frozen-set dialog: the noun, the span of death times, the per-task breakdown.

export const frozenDeadLetterProps = {
  noun: ['dead letter', 'dead letters'] as [string, string],
  span: (p: { oldestDeadAt: Date | null; newestDeadAt: Date | null }) => ({ what: 'dead', from: p.oldestDeadAt, to: p.newestDeadAt }),
  breakdown: (p: { byTask: { task: string; count: number }[] }) => p.byTask.map((t) => ({ key: t.task, label: <span className="font-mono">{t.task}</span>, count: t.count })),
};
