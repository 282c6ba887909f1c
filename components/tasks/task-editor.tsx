'use client';
// The task editor: every field of the definition, validated on each keystroke by the
// shared schema (inline errors), then "Review changes" shows the server's diff against
// the version the edit started from and asks for a message; Apply stores a new version.
// An edit based on a stale version is refused by the server (CONFLICT) and says so here,
// with the choice to load the latest — nothing is merged silently. Viewers see the same
// page read-only.
import { CircuitBreakerSection } from './protect-sections';
import { BreakerPanel } from './breaker-panel';
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import type { TaskDefinition } from '@/server/core/task-definition';
import type { TaskChangeGroup } from '@/server/core/config-change-view';
import type { TaskLoadView } from '@/server/presenters/tasks';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import { TRPCClientError } from '@trpc/client';
import { Badge } from '@/components/ui/badge';
import { Button, buttonClass } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { ApplyReview } from '@/components/config/apply-review';
import { WhatIfPanel } from '@/components/config/what-if-panel';
import { emptyForm, formFromDefinition, formToInput, serverErrorsToForm, validateForm, type TaskForm } from './task-form-model';
import { inheritField, releaseEdited, withInheritedValues } from './task-form-model';
import { FieldOriginNote } from './field-origin';
import { GroupsEditor, type KeyFallback } from './groups-editor';
import { BackpressureSection, DeadLetterSection, GeneralSection, RetrySection, RoutingSection, Section, ThresholdsSection } from './task-form-sections';
import { PrioritySection } from './priority-section';
import { RateLimitSection } from './rate-limit-section';
import { FairShareSection } from './fair-share-section';
import { PauseToggle } from './pause-toggle';
import { DeleteTask } from './delete-task';
import { TaskLoadStrip } from './task-load-strip';
import { prefillOverride } from './override-prefill';
import { keysViewHref, streamsViewHref } from '@/server/core/key-views';
import { DEFAULT_BAKE_MS, DEFAULT_GUARD_RULE, describeGuardRule, formatBake, type GuardRule } from '@/server/core/guarded-rollout';

// A concurrent edit: CONFLICT without field errors. A CONFLICT that names a field (a new
// task whose name is taken) is shown at the field, not as the concurrent-edit banner.
const isConflict = (e: unknown) =>
  e instanceof TRPCClientError && (e.data as { code?: string } | undefined)?.code === 'CONFLICT' && Object.keys(fieldErrorsOf(e)).length === 0;
const sameInput = (a: TaskForm, b: TaskForm) => JSON.stringify(formToInput(a)) === JSON.stringify(formToInput(b));

export function EditTask({ name, canEdit, overrideParam = null }: { name: string; canEdit: boolean; overrideParam?: string | null }) {
  const trpc = useTRPC();
  const { data } = useSuspenseQuery({ ...trpc.tasks.get.queryOptions({ name }), refetchInterval: 5000 });
  return (
    <TaskEditor
      key={`${name}|${overrideParam ?? ''}`}
      mode="update"
      definition={data.definition}
      version={data.version}
      load={data.load}
      canEdit={canEdit}
      overrideParam={overrideParam}
    />
  );
}

export function CreateTask({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const { data } = useSuspenseQuery(trpc.tasks.list.queryOptions());
  return <TaskEditor mode="create" definition={null} version={data.version} load={null} canEdit={canEdit} />;
}

function TaskEditor({
  mode,
  definition,
  version,
  load,
  canEdit,
  overrideParam = null,
}: {
  mode: 'create' | 'update';
  definition: TaskDefinition | null;
  version: number | null;
  load: TaskLoadView | null;
  canEdit: boolean;
  /** `group=key` from the Keys view's "Add override": the draft starts with that row. */
  overrideParam?: string | null;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  // Fleet defaults: inherited fields show (and a new task starts from) the values in effect.
  const { data: fleet } = useSuspenseQuery(trpc.defaults.get.queryOptions());
  const initial = useMemo(
    () => withInheritedValues(definition ? formFromDefinition(definition) : emptyForm(), fleet.effective),
    [definition, fleet.effective],
  );
  // What the draft is based on: fixed when editing starts, so a newer stored version
  // makes the draft stale instead of silently rebasing it.
  const [base, setBase] = useState<{ form: TaskForm; version: number | null }>({ form: initial, version });
  // Operators only: a viewer's read-only page ignores the parameter.
  const [prefill] = useState(() => (canEdit && mode === 'update' ? prefillOverride(initial, overrideParam) : null));
  const [form, setForm] = useState<TaskForm>(prefill?.status === 'added' ? prefill.form : initial);
  const [review, setReview] = useState<{ basedOn: number | null; changes: TaskChangeGroup[] } | null>(null);
  const [showAll, setShowAll] = useState(false);
  const [nameTouched, setNameTouched] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<number | null>(null);

  const dirty = !sameInput(form, base.form);
  // A clean draft follows the stored version (someone else's apply, a pause from the list).
  if (!dirty && !review && (version !== base.version || !sameInput(initial, base.form))) {
    setBase({ form: initial, version });
    setForm(initial);
  }
  const stale = dirty && version !== base.version;

  const clientErrors = useMemo(() => validateForm(form), [form]);
  const errors = { ...serverErrors, ...clientErrors };
  if (mode === 'create' && !nameTouched && !showAll) delete errors.name;
  const errorCount = Object.keys(clientErrors).length;

  const update = (fn: (f: TaskForm) => void) => {
    setForm((prev) => {
      let next = structuredClone(prev);
      fn(next);
      next = releaseEdited(prev, next);
      if (next.name !== prev.name) setNameTouched(true);
      return next;
    });
    setServerErrors({});
    setApplied(null);
  };

  const onServerError = (e: unknown) => {
    const fe = fieldErrorsOf(e);
    if (Object.keys(fe).length) setServerErrors(serverErrorsToForm(form, fe));
  };

  const preview = useMutation(
    trpc.tasks.preview.mutationOptions({
      onSuccess: (r) => setReview(r),
      onError: onServerError,
    }),
  );
  // The what-if replay runs beside the diff when an existing task's change is reviewed.
  const whatIf = useMutation(trpc.tasks.whatIf.mutationOptions());
  const [whatIfHours, setWhatIfHours] = useState(1);
  const runWhatIf = (hours: number) => {
    setWhatIfHours(hours);
    whatIf.mutate({ task: formToInput(form) as Record<string, unknown>, windowHours: hours });
  };
  const save = useMutation(
    trpc.tasks.save.mutationOptions({
      onSuccess: async (r) => {
        setReview(null);
        setApplied(r.version);
        await Promise.all([
          queryClient.invalidateQueries(trpc.tasks.pathFilter()),
          queryClient.invalidateQueries(trpc.config.pathFilter()),
          queryClient.invalidateQueries(trpc.coordinators.pathFilter()),
        ]);
        if (mode === 'create') {
          router.push(`/tasks/${encodeURIComponent(form.name.trim())}?applied=${r.version}`);
        } else {
          setBase({ form, version: r.version });
        }
      },
      onError: onServerError,
    }),
  );

  const loadLatest = async () => {
    await queryClient.invalidateQueries(trpc.tasks.pathFilter());
    setReview(null);
    preview.reset();
    save.reset();
    setServerErrors({});
    // The refetched definition arrives as new props; a clean draft then follows it.
    setForm(base.form);
  };

  const requestReview = () => {
    setShowAll(true);
    if (errorCount > 0) return;
    preview.mutate({ mode, task: formToInput(form) as Record<string, unknown>, basedOn: base.version });
    if (mode === 'update') runWhatIf(whatIfHours);
  };

  // ─── Fleet defaults: each inheritable field's effective value and its source ───
  const origin = (path: Parameters<typeof inheritField>[1]) => (
    <FieldOriginNote
      path={path}
      inherited={form.inherited.includes(path)}
      source={fleet.sources[path] ?? 'built-in'}
      inheritedValue={path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], fleet.effective)}
      onUseDefault={!canEdit ? undefined : () => update((f) => Object.assign(f, inheritField(f, path, fleet.effective)))}
    />
  );
  // The task's own alert policy fields: '' inherits the fleet's (or built-in) value.
  const policyField = { 'thresholds.clearAfterMs': 'clearForMs', 'thresholds.hysteresis': 'hysteresis', 'thresholds.waitP99Ms': 'waitP99Ms', 'thresholds.keyWaitMs': 'keyWaitMs' } as const;
  const policyOrigin = (path: keyof typeof policyField) => {
    const own =
      path === 'thresholds.waitP99Ms'
        ? form.alertPolicy.waitWarning.trim() !== '' || form.alertPolicy.waitCritical.trim() !== ''
        : path === 'thresholds.keyWaitMs'
          ? form.alertPolicy.keyWaitWarning.trim() !== '' || form.alertPolicy.keyWaitCritical.trim() !== ''
          : form.alertPolicy[path === 'thresholds.clearAfterMs' ? 'clearAfterMs' : 'hysteresis'].trim() !== '';
    return (
      <FieldOriginNote
        path={path}
        inherited={!own}
        source={fleet.sources[`alertPolicy.${policyField[path]}`] ?? 'built-in'}
        inheritedValue={fleet.effective.alertPolicy[policyField[path]]}
        onUseDefault={
          !canEdit
            ? undefined
            : () =>
                update((f) => {
                  if (path === 'thresholds.waitP99Ms') Object.assign(f.alertPolicy, { waitWarning: '', waitCritical: '' });
                  else if (path === 'thresholds.keyWaitMs') Object.assign(f.alertPolicy, { keyWaitWarning: '', keyWaitCritical: '' });
                  else f.alertPolicy[path === 'thresholds.clearAfterMs' ? 'clearAfterMs' : 'hysteresis'] = '';
                })
        }
      />
    );
  };
  const policyDefaults = fleet.effective.alertPolicy;
  // A key policy's blank field: the task's value (its own, or what it inherits) and its source.
  const sourceLabel = (s: string | undefined) => (s === 'default' ? 'fleet default' : 'built-in');
  const keyFallback: KeyFallback = (field) => {
    if (field === 'waitWarning' || field === 'waitCritical') {
      // A key without its own wait lines: the task's key-wait lines, else the fleet's, else none.
      const line = field === 'waitWarning' ? 'warning' : 'critical';
      const own = form.alertPolicy.keyWaitWarning.trim() !== '' || form.alertPolicy.keyWaitCritical.trim() !== '';
      if (own) return { value: form.alertPolicy[field === 'waitWarning' ? 'keyWaitWarning' : 'keyWaitCritical'] || '—', source: 'task' };
      const fleetLines = fleet.effective.alertPolicy.keyWaitMs;
      return fleetLines ? { value: String(fleetLines[line]), source: sourceLabel(fleet.sources['alertPolicy.keyWaitMs']) } : { value: 'none', source: 'built-in' };
    }
    if (field === 'timeoutMs') return { value: String(form.timeoutMs), source: form.inherited.includes('timeoutMs') ? sourceLabel(fleet.sources.timeoutMs) : 'task' };
    if (field === 'alertAfterMs' || field === 'clearAfterMs' || field === 'hysteresis') {
      const typed = field === 'alertAfterMs' ? form.alertAfterMs : form.alertPolicy[field];
      if (typed.trim() !== '') return { value: typed.trim(), source: 'task' };
      const policy = field === 'alertAfterMs' ? 'forMs' : field === 'clearAfterMs' ? 'clearForMs' : 'hysteresis';
      return { value: String(fleet.effective.alertPolicy[policy]), source: sourceLabel(fleet.sources[`alertPolicy.${policy}`]) };
    }
    const path = `retry.${field}` as const;
    return { value: String(form.retry[field]), source: form.inherited.includes(path) ? sourceLabel(fleet.sources[path]) : 'task' };
  };
  const alertAfterDefault = {
    value: fleet.effective.alertPolicy.forMs,
    source: fleet.sources['alertPolicy.forMs'] === 'default' ? 'fleet default' : 'built-in default',
  };
  // ─── end fleet defaults ───

  const conflict = [preview.error, save.error].find(isConflict);
  const otherError = [preview.error, save.error].find((e) => e && !isConflict(e) && Object.keys(fieldErrorsOf(e)).length === 0);
  const title = mode === 'create' ? 'New task' : (definition?.name ?? '');
  const readOnly = !canEdit;

  return (
    <div className="flex flex-col gap-4 pb-16">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <p className="text-[12px] text-muted">
            <Link href="/tasks" className="hover:text-fg hover:underline">
              Tasks
            </Link>{' '}
            /
          </p>
          <h1 className="flex items-center gap-2 text-[18px] font-semibold tracking-tight">
            <span className={mode === 'update' ? 'font-mono' : undefined}>{title}</span>
            {definition && (definition.paused ? <Badge tone="warning">paused</Badge> : <Badge tone="success">running</Badge>)}
            {version !== null && mode === 'update' && <span className="text-[12px] font-normal text-muted">config v{version}</span>}
          </h1>
          {definition?.description && <p className="mt-0.5 text-[13px] text-muted">{definition.description}</p>}
        </div>
        {mode === 'update' && definition && (
          <div className="flex flex-wrap items-center gap-2">
            <Link href={`/tasks/${encodeURIComponent(definition.name)}/metrics`} className={buttonClass('secondary', 'sm')}>
              Metrics
            </Link>
            {definition.groups.length > 0 && (
              <Link href={keysViewHref(definition.name)} className={buttonClass('secondary', 'sm')}>
                Keys
              </Link>
            )}
            <Link href={streamsViewHref(definition.name)} className={buttonClass('secondary', 'sm')}>
              Streams
            </Link>
            <Link href={`/tasks/${encodeURIComponent(definition.name)}/history`} className={buttonClass('secondary', 'sm')}>
              History
            </Link>
            <a href="/api/config/export" className={buttonClass('secondary', 'sm')} download>
              Download YAML
            </a>
            {canEdit && (
              <PauseToggle
                task={definition.name}
                paused={definition.paused}
                disabled={dirty}
                disabledReason="Apply or discard your edits first"
                onApplied={(v) => setApplied(v)}
              />
            )}
          </div>
        )}
      </div>

      {load && definition && <TaskLoadStrip load={load} concurrency={definition.concurrency} partitions={definition.partitions} />}
      {mode === 'update' && definition && <BreakerPanel task={definition.name} canReset={canEdit} />}

      {readOnly && (
        <Callout tone="accent">Read-only: your role can view tasks but not change them. Operators and admins can edit.</Callout>
      )}
      {applied !== null && (
        <Callout tone="success">
          Applied as config version {applied}
          {save.variables?.guard && save.data?.version === applied
            ? ` with guard: it rolls back by itself if ${describeGuardRule({ ...DEFAULT_GUARD_RULE, ...save.variables.guard.rule })} of this task fires within ${formatBake(save.variables.guard.bakeMs ?? DEFAULT_BAKE_MS)}`
            : ''}
          .{' '}
          <Link href="/coordinators" className="font-medium underline">
            {save.variables?.guard && save.data?.version === applied ? 'Watch the bake on Coordinators' : 'Watch the rollout on Coordinators'}
          </Link>
        </Callout>
      )}
      {stale && !conflict && (
        <Callout tone="warning">
          Version {version} was applied since you started editing (your edit is based on version {base.version}). Applying will be refused;
          load the latest to start again from it.{' '}
          <Button size="sm" onClick={loadLatest}>
            Load latest (discards your edits)
          </Button>
        </Callout>
      )}
      {conflict && (
        <Callout tone="danger">
          <p className="font-medium">Not applied: {errorMessage(conflict)}</p>
          <p className="mt-1 text-fg">Your edits are still here. Load the latest version to start from it (this discards your edits).</p>
          <Button size="sm" className="mt-2" onClick={loadLatest}>
            Load latest version
          </Button>
        </Callout>
      )}
      {otherError && !review && <Callout tone="danger">{errorMessage(otherError)}</Callout>}
      {prefill && !review && applied === null && (
        <div data-testid="override-prefill">
        <Callout tone={prefill.status === 'no-group' ? 'warning' : 'accent'}>
          {prefill.status === 'added' && (
            <>
              An override for <span className="font-mono">{prefill.group}={prefill.key}</span> was added to the draft at the group&apos;s limit. Set its
              limit under Concurrency groups, then Review changes and Apply.
            </>
          )}
          {prefill.status === 'exists' && (
            <>
              <span className="font-mono">{prefill.group}={prefill.key}</span> already has an override; change its limit under Concurrency groups.
            </>
          )}
          {prefill.status === 'no-group' && (
            <>
              This task has no group <span className="font-mono">{prefill.group}</span> any more, so no override was added for{' '}
              <span className="font-mono">{prefill.key}</span>.
            </>
          )}
        </Callout>
        </div>
      )}

      {review ? (
        <ApplyReview
          title={mode === 'create' ? `Create ${form.name}` : `Apply changes to ${form.name}`}
          basedOn={review.basedOn}
          changes={review.changes}
          pending={save.isPending}
          error={otherError ? errorMessage(otherError) : undefined}
          extra={
            mode === 'update' ? (
              <WhatIfPanel
                preview={whatIf.data}
                pending={whatIf.isPending}
                error={whatIf.error ? errorMessage(whatIf.error) : undefined}
                windowHours={whatIfHours}
                onWindowHours={runWhatIf}
              />
            ) : undefined
          }
          onCancel={() => {
            setReview(null);
            save.reset();
          }}
          onApply={(message) => save.mutate({ mode, task: formToInput(form) as Record<string, unknown>, basedOn: review.basedOn, message })}
          {...(mode === 'update'
            ? {
                onApplyWithGuard: (message: string, bakeMs: number, rule: GuardRule) =>
                  save.mutate({ mode, task: formToInput(form) as Record<string, unknown>, basedOn: review.basedOn, message, guard: { bakeMs, rule } }),
              }
            : {})}
        />
      ) : (
        <fieldset disabled={readOnly} className="m-0 flex min-w-0 flex-col gap-4 border-0 p-0" aria-label="Task definition">
          <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
            <GeneralSection form={form} errors={errors} update={update} creating={mode === 'create'} origin={origin} />
            <RoutingSection form={form} errors={errors} update={update} />
          </div>
          <Section id="sec-groups" title="Concurrency groups" description="Limits per key (tenant, customer, message …); an execution needs a slot in every group it has a key for.">
            <GroupsEditor form={form} errors={errors} update={update} readOnly={readOnly} keyFallback={keyFallback} highlightUid={prefill && prefill.status !== 'no-group' ? prefill.uid : null} />
          </Section>
          {/* Limits (issue #19) */}
          <PrioritySection form={form} errors={errors} update={update} />
          <RateLimitSection form={form} errors={errors} update={update} />
          <FairShareSection form={form} errors={errors} update={update} />
          <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
            <RetrySection form={form} errors={errors} update={update} origin={origin} />
            <BackpressureSection form={form} errors={errors} update={update} />
            <DeadLetterSection form={form} errors={errors} update={update} />
            <ThresholdsSection
              form={form}
              errors={errors}
              update={update}
              origin={origin}
              alertAfterDefault={alertAfterDefault}
              policyOrigin={policyOrigin}
              policyDefaults={policyDefaults}
            />
            <CircuitBreakerSection form={form} errors={errors} update={update} />
          </div>
        </fieldset>
      )}

      {mode === 'update' && canEdit && definition && load && !review && (
        <DeleteTask task={definition.name} basedOn={base.version} load={load} paused={definition.paused} />
      )}

      {canEdit && !review && (
        <div className="sticky bottom-0 z-10 -mx-3 flex items-center justify-end gap-3 border-t border-border bg-surface/95 px-3 py-2.5 backdrop-blur md:-mx-6 md:px-6">
          <span className="mr-auto text-[12px] text-muted" aria-live="polite">
            {showAll && errorCount > 0
              ? `${errorCount} field${errorCount === 1 ? '' : 's'} to fix before review`
              : dirty
                ? 'Unsaved changes'
                : mode === 'create'
                  ? 'Fill in the task and review'
                  : 'No changes'}
          </span>
          {dirty && mode === 'update' && (
            <Button onClick={() => (setForm(base.form), setServerErrors({}), setShowAll(false))}>Discard</Button>
          )}
          <Button variant="primary" disabled={(!dirty && mode === 'update') || preview.isPending} onClick={requestReview}>
            {preview.isPending ? 'Computing diff…' : 'Review changes'}
          </Button>
        </div>
      )}
    </div>
  );
}
