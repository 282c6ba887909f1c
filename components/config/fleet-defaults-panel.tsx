'use client';
// Settings → Defaults: the fleet-wide `defaults:` of the config (timeouts, retry,
// thresholds, alert policy). Every task inherits a field it does not set itself; a
// per-key group override still wins over the task. Admins edit: each field validated by
// the shared schema as they type (empty = built-in), "Review" shows the changed defaults
// and what they change in the tasks that inherit them, Apply stores a new config version
// that coordinators pick up at once. Everyone else sees the same page read-only.
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { ApplyReview } from '@/components/config/apply-review';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Input, Select } from '@/components/ui/input';
import { Table, Td, Th } from '@/components/ui/table';
import { parseFleetDefaults, type DefaultsChange } from '@/server/core/fleet-defaults';
import { readPath } from '@/server/core/task-definition';
import type { TaskChangeGroup } from '@/server/core/config-change-view';

type Kind = 'number' | 'pair' | 'backoff';
interface Row {
  path: string;
  label: string;
  kind: Kind;
  unit?: string;
}
const GROUPS: { title: string; rows: Row[] }[] = [
  {
    title: 'Execution',
    rows: [
      { path: 'timeoutMs', label: 'Timeout', kind: 'number', unit: 'ms' },
      { path: 'retry.maxAttempts', label: 'Max attempts', kind: 'number' },
      { path: 'retry.backoff', label: 'Backoff', kind: 'backoff' },
      { path: 'retry.baseDelayMs', label: 'Retry base delay', kind: 'number', unit: 'ms' },
      { path: 'retry.maxDelayMs', label: 'Retry max delay', kind: 'number', unit: 'ms' },
      { path: 'retry.jitter', label: 'Retry jitter', kind: 'number', unit: '0–1' },
    ],
  },
  {
    title: 'Thresholds (warning / critical)',
    rows: [
      { path: 'thresholds.depth', label: 'Depth per partition', kind: 'pair', unit: 'executions' },
      { path: 'thresholds.imbalance', label: 'Imbalance', kind: 'pair', unit: 'ratio' },
      { path: 'thresholds.retryRate', label: 'Retry rate', kind: 'pair', unit: 'fraction, 0.1 = 10%' },
      { path: 'thresholds.dlqRate', label: 'DLQ rate', kind: 'pair', unit: 'fraction' },
      { path: 'thresholds.p99LatencyMs', label: 'p99 latency', kind: 'pair', unit: 'ms' },
    ],
  },
  {
    title: 'Alert policy',
    rows: [
      { path: 'alertPolicy.forMs', label: 'Fire after (for-duration)', kind: 'number', unit: 'ms' },
      { path: 'alertPolicy.clearForMs', label: 'Resolve after (clear)', kind: 'number', unit: 'ms' },
      { path: 'alertPolicy.hysteresis', label: 'Hysteresis', kind: 'number', unit: '0–0.9' },
      { path: 'alertPolicy.waitP99Ms', label: 'p99 wait (ready → claimed)', kind: 'pair', unit: 'ms' },
      { path: 'alertPolicy.keyWaitMs', label: 'Key wait: any key without its own lines (oldest due)', kind: 'pair', unit: 'ms' },
      { path: 'alertPolicy.hotPartition.factor', label: 'Hot partition: × sibling median', kind: 'number' },
      { path: 'alertPolicy.hotPartition.floorDepth', label: 'Hot partition: min depth', kind: 'number' },
      { path: 'alertPolicy.hotKey.dominantShare', label: 'Hot key: share of group load', kind: 'number', unit: '0–1' },
      { path: 'alertPolicy.hotKey.floor', label: 'Hot key: min load', kind: 'number' },
    ],
  },
];
const ROWS = GROUPS.flatMap((g) => g.rows);

/** The form: text per leaf ('' = not set); a pair is two texts. */
type Draft = Record<string, string>;

function draftOf(defaults: object): Draft {
  const d: Draft = {};
  for (const r of ROWS) {
    const v = readPath(defaults, r.path);
    if (r.kind === 'pair') {
      const p = v as { warning: number; critical: number } | undefined;
      d[`${r.path}.warning`] = p ? String(p.warning) : '';
      d[`${r.path}.critical`] = p ? String(p.critical) : '';
    } else d[r.path] = v === undefined ? '' : String(v);
  }
  return d;
}

function set(o: Record<string, unknown>, path: string, v: unknown) {
  const parts = path.split('.');
  let cur = o;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]!] = v;
}

/** Text that is not a number stays NaN, so the schema says "must be a number". */
const num = (s: string) => (s.trim() === '' ? undefined : Number(s.trim()));

function documentOf(d: Draft): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of ROWS) {
    if (r.kind === 'pair') {
      const w = num(d[`${r.path}.warning`] ?? '');
      const c = num(d[`${r.path}.critical`] ?? '');
      if (w !== undefined || c !== undefined) set(out, r.path, { warning: w, critical: c });
    } else if (r.kind === 'backoff') {
      if (d[r.path]) set(out, r.path, d[r.path]);
    } else {
      const v = num(d[r.path] ?? '');
      if (v !== undefined) set(out, r.path, v);
    }
  }
  return out;
}

function shown(v: unknown): string {
  if (v === undefined) return '—';
  // Key-wait lines are off until set (built-in: none).
  if (v === null) return 'none';
  if (v && typeof v === 'object' && 'warning' in v && 'critical' in v) return `${String(v.warning)} / ${String(v.critical)}`;
  return String(v);
}

export function FleetDefaultsPanel({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data } = useSuspenseQuery(trpc.defaults.get.queryOptions());
  const stored = useMemo(() => draftOf(data.defaults), [data.defaults]);
  const [base, setBase] = useState({ draft: stored, version: data.version });
  const [draft, setDraft] = useState<Draft>(stored);
  const [review, setReview] = useState<{ basedOn: number | null; defaults: DefaultsChange[]; changes: TaskChangeGroup[] } | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<number | null>(null);

  const dirty = JSON.stringify(draft) !== JSON.stringify(base.draft);
  if (!dirty && !review && (data.version !== base.version || JSON.stringify(stored) !== JSON.stringify(base.draft))) {
    setBase({ draft: stored, version: data.version });
    setDraft(stored);
  }
  const doc = useMemo(() => documentOf(draft), [draft]);
  const clientErrors = useMemo(() => {
    const r = parseFleetDefaults(doc);
    return r.ok ? {} : Object.fromEntries(r.errors.map((e) => [e.path, e.message.replace(/.*received NaN.*/, 'must be a number')]));
  }, [doc]);
  const errors: Record<string, string> = { ...serverErrors, ...clientErrors };
  const errorFor = (path: string) => errors[path] ?? errors[`defaults.${path}`];

  const onError = (e: unknown) => setServerErrors(fieldErrorsOf(e));
  const preview = useMutation(trpc.defaults.preview.mutationOptions({ onSuccess: setReview, onError }));
  const save = useMutation(
    trpc.defaults.save.mutationOptions({
      onSuccess: async (r) => {
        setReview(null);
        setApplied(r.version);
        setBase({ draft, version: r.version });
        await Promise.all([queryClient.invalidateQueries(trpc.defaults.pathFilter()), queryClient.invalidateQueries(trpc.tasks.pathFilter()), queryClient.invalidateQueries(trpc.config.pathFilter())]);
      },
      onError,
    }),
  );
  const edit = (key: string, value: string) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setServerErrors({});
    setApplied(null);
  };
  const failure = [preview.error, save.error].find((e) => e && Object.keys(fieldErrorsOf(e)).length === 0);

  const input = (key: string, builtIn: unknown, label: string, err?: string) => (
    <Input
      aria-label={label}
      aria-invalid={err ? true : undefined}
      inputMode="decimal"
      className="!w-24 min-w-[5rem] font-mono"
      value={draft[key] ?? ''}
      placeholder={String(builtIn)}
      disabled={!canEdit}
      onChange={(e) => edit(key, e.target.value)}
    />
  );

  return (
    <div className="flex flex-col gap-4 pb-16">
      <p className="max-w-3xl text-[13px] text-muted">
        Fleet-wide defaults. A task takes each of these unless it sets the field itself; a per-key override in a task&apos;s group still wins over the task. Empty
        fields use the built-in value (shown greyed). Config version {data.version ?? '—'}, {data.taskCount} tasks.
        {!canEdit && ' Only admins can change them.'}
      </p>
      {applied !== null && <Callout tone="success">Applied as config version {applied}; coordinators and the alert evaluator use it now.</Callout>}
      {failure ? <Callout tone="danger">{errorMessage(failure)}</Callout> : null}
      {GROUPS.map((g) => (
        <section key={g.title} aria-label={g.title} className="rounded-lg border border-border bg-surface">
          <header className="border-b border-border px-3 py-2">
            <h2 className="text-[13px] font-semibold">{g.title}</h2>
          </header>
          <div className="overflow-x-auto">
            <Table>
              <thead>
                <tr>
                  <Th>Field</Th>
                  <Th className="w-72">Fleet default</Th>
                  <Th className="w-40">In effect</Th>
                  <Th className="w-40">Tasks inheriting</Th>
                </tr>
              </thead>
              <tbody>
                {g.rows.map((r) => {
                  const builtIn = readPath(data.builtIn, r.path) as unknown;
                  const err = r.kind === 'pair' ? (errorFor(`${r.path}.warning`) ?? errorFor(`${r.path}.critical`) ?? errorFor(r.path)) : errorFor(r.path);
                  const inheriting = data.inheriting[r.path];
                  return (
                    <tr key={r.path} className="align-top" data-path={r.path}>
                      <Td className="text-[13px]">
                        {r.label} {r.unit && <span className="text-[12px] text-subtle">({r.unit})</span>}
                      </Td>
                      <Td>
                        <div className="flex items-center gap-1.5">
                          {r.kind === 'pair' ? (
                            <>
                              {/* A pair without a built-in value (key wait: none) shows "none". */}
                              {input(`${r.path}.warning`, (builtIn as { warning: number } | null)?.warning ?? 'none', `${r.label} warning`, err)}
                              <span className="text-subtle">/</span>
                              {input(`${r.path}.critical`, (builtIn as { critical: number } | null)?.critical ?? 'none', `${r.label} critical`, err)}
                            </>
                          ) : r.kind === 'backoff' ? (
                            <Select aria-label={r.label} className="w-36" value={draft[r.path] ?? ''} disabled={!canEdit} onChange={(e) => edit(r.path, e.target.value)}>
                              <option value="">built-in ({String(builtIn)})</option>
                              <option value="exponential">exponential</option>
                              <option value="fixed">fixed</option>
                            </Select>
                          ) : (
                            input(r.path, builtIn, r.label, err)
                          )}
                        </div>
                        {err && <p className="mt-0.5 text-[12px] text-danger">{err}</p>}
                      </Td>
                      <Td className="font-mono text-[12px]">
                        {shown(readPath(data.effective, r.path))}{' '}
                        <Badge tone={data.sources[r.path] === 'default' ? 'accent' : 'neutral'}>{data.sources[r.path] === 'default' ? 'fleet' : 'built-in'}</Badge>
                      </Td>
                      <Td className="text-[12px] text-muted">{inheriting ? `${inheriting.length} of ${data.taskCount}` : 'all tasks'}</Td>
                    </tr>
                  );
                })}
              </tbody>
            </Table>
          </div>
        </section>
      ))}
      {canEdit && !review && (
        <div className="flex items-center gap-2">
          <Button
            variant="primary"
            disabled={!dirty || Object.keys(clientErrors).length > 0 || preview.isPending}
            onClick={() => preview.mutate({ defaults: doc, basedOn: base.version })}
          >
            Review changes
          </Button>
          {dirty && (
            <Button variant="secondary" onClick={() => setDraft(base.draft)}>
              Discard
            </Button>
          )}
        </div>
      )}
      {review && (
        <ApplyReview
          title="Apply new fleet defaults"
          basedOn={review.basedOn}
          changes={review.changes}
          pending={save.isPending}
          extra={
            <div aria-label="Changed defaults" className="text-[12px]">
              <p className="mb-1 font-semibold">Defaults</p>
              <ul className="flex flex-col gap-0.5 font-mono">
                {review.defaults.map((c) => (
                  <li key={c.path} data-path={c.path}>
                    {c.path}: {shown(c.before)} → {shown(c.after)}
                  </li>
                ))}
              </ul>
              {review.changes.length === 0 && <p className="mt-1 text-muted">No task inherits these fields: no task changes.</p>}
            </div>
          }
          onApply={(message) => save.mutate({ defaults: doc, basedOn: review.basedOn, message })}
          onCancel={() => setReview(null)}
        />
      )}
    </div>
  );
}
