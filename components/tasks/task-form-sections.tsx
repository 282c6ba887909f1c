'use client';
// The task editor's sections, one per part of the definition. Every control reads and
// writes the form model through `update`; errors come keyed by schema path.
import type { ReactNode } from 'react';
import { BACKPRESSURE_POLICIES, ROUTING_STRATEGIES } from '@/server/core/task-definition';
import { ALERT_EVALUATION_INTERVAL_MS, DEFAULT_ALERT_POLICY } from '@/server/core/alert-evaluation';
import { KEY_WAIT_INHERITED_MAX } from '@/server/core/alert-observation';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { Table, Td, Th } from '@/components/ui/table';
import type { ThresholdMetric } from '@/server/core/thresholds';
import type { InheritablePath } from '@/server/core/task-definition';
import type { ErrorMap, TaskForm } from './task-form-model';
import { NumberInput } from './number-input';
import { BackpressureStagesFields } from './protect-sections';

type Update = (fn: (f: TaskForm) => void) => void;
interface SectionProps {
  form: TaskForm;
  errors: ErrorMap;
  update: Update;
}

export function Section({ title, description, children, id }: { title: string; description?: string; children: ReactNode; id: string }) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-border bg-surface">
      <header className="border-b border-border px-3 py-2">
        <h2 id={id} className="text-[13px] font-semibold">
          {title}
        </h2>
        {description && <p className="text-[12px] text-muted">{description}</p>}
      </header>
      <div className="p-3">{children}</div>
    </section>
  );
}

const grid = 'grid grid-cols-1 gap-3 sm:grid-cols-2';

// ─── Fleet defaults: where an inheritable field's value comes from (task-editor.tsx renders it) ───
export type OriginRender = (path: InheritablePath) => ReactNode;
interface OriginProps {
  origin?: OriginRender | undefined;
}
function WithOrigin({ origin, path, children }: { origin: OriginRender | undefined; path: InheritablePath; children: ReactNode }) {
  if (!origin) return <>{children}</>;
  return (
    <div className="flex flex-col gap-1">
      {children}
      {origin(path)}
    </div>
  );
}
// ─── end fleet defaults ───

export function GeneralSection({ form, errors, update, creating, origin }: SectionProps & OriginProps & { creating: boolean }) {
  return (
    <Section id="sec-general" title="General" description="Identity and the cluster-wide limits.">
      <div className={grid}>
        <Field label="Name" hint={creating ? 'Producers enqueue by this name; it cannot change later.' : undefined} error={errors.name}>
          <Input value={form.name} readOnly={!creating} onChange={(e) => update((f) => void (f.name = e.target.value))} className="font-mono" placeholder="send-email" />
        </Field>
        <Field label="Description" error={errors.description}>
          <Input value={form.description} onChange={(e) => update((f) => void (f.description = e.target.value))} maxLength={500} />
        </Field>
        <Field label="Concurrency" hint="Running executions at once, cluster-wide" error={errors.concurrency}>
          <NumberInput value={form.concurrency} onValue={(v) => update((f) => void (f.concurrency = v))} />
        </Field>
        <Field label="Partitions" hint="Changing it moves queued work; stream order is kept" error={errors.partitions}>
          <NumberInput value={form.partitions} onValue={(v) => update((f) => void (f.partitions = v))} />
        </Field>
        <WithOrigin origin={origin} path="timeoutMs">
          <Field label="Timeout (ms)" hint="A run longer than this fails the attempt" error={errors.timeoutMs}>
            <NumberInput value={form.timeoutMs} onValue={(v) => update((f) => void (f.timeoutMs = v))} />
          </Field>
        </WithOrigin>
      </div>
    </Section>
  );
}

export function RoutingSection({ form, errors, update }: SectionProps) {
  return (
    <Section id="sec-routing" title="Routing and streams" description="Which partition an execution goes to; which executions run in order.">
      <div className={grid}>
        <Field label="Routing strategy" error={errors['routing.strategy']}>
          <Select value={form.routing.strategy} onChange={(e) => update((f) => void (f.routing.strategy = e.target.value as TaskForm['routing']['strategy']))}>
            {ROUTING_STRATEGIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label="Routing key path"
          hint={form.routing.strategy === 'hash' ? 'Same key → same partition' : 'Used by hash routing only'}
          error={errors['routing.keyPath']}
        >
          <Input value={form.routing.keyPath} onChange={(e) => update((f) => void (f.routing.keyPath = e.target.value))} className="font-mono" placeholder="customer.id" />
        </Field>
        <Field label="Stream key path" hint="Executions with the same key run one at a time, in order. Empty: no streams." error={errors['stream.keyPath']}>
          <Input value={form.streamKeyPath} onChange={(e) => update((f) => void (f.streamKeyPath = e.target.value))} className="font-mono" placeholder="order.id" />
        </Field>
      </div>
    </Section>
  );
}

export function RetrySection({ form, errors, update, origin }: SectionProps & OriginProps) {
  return (
    <Section id="sec-retry" title="Retry policy" description="After the last attempt the execution becomes a dead letter.">
      <div className={grid}>
        <WithOrigin origin={origin} path="retry.maxAttempts">
          <Field label="Max attempts" error={errors['retry.maxAttempts']}>
            <NumberInput value={form.retry.maxAttempts} onValue={(v) => update((f) => void (f.retry.maxAttempts = v))} />
          </Field>
        </WithOrigin>
        <WithOrigin origin={origin} path="retry.backoff">
          <Field label="Backoff" error={errors['retry.backoff']}>
            <Select value={form.retry.backoff} onChange={(e) => update((f) => void (f.retry.backoff = e.target.value as TaskForm['retry']['backoff']))}>
              <option value="exponential">exponential</option>
              <option value="fixed">fixed</option>
            </Select>
          </Field>
        </WithOrigin>
        <WithOrigin origin={origin} path="retry.baseDelayMs">
          <Field label="Base delay (ms)" error={errors['retry.baseDelayMs']}>
            <NumberInput value={form.retry.baseDelayMs} onValue={(v) => update((f) => void (f.retry.baseDelayMs = v))} />
          </Field>
        </WithOrigin>
        <WithOrigin origin={origin} path="retry.maxDelayMs">
          <Field label="Max delay (ms)" error={errors['retry.maxDelayMs']}>
            <NumberInput value={form.retry.maxDelayMs} onValue={(v) => update((f) => void (f.retry.maxDelayMs = v))} />
          </Field>
        </WithOrigin>
        <WithOrigin origin={origin} path="retry.jitter">
          <Field label="Jitter (0–1)" hint="Fraction of the delay that is randomised" error={errors['retry.jitter']}>
            <NumberInput value={form.retry.jitter} onValue={(v) => update((f) => void (f.retry.jitter = v))} />
          </Field>
        </WithOrigin>
      </div>
    </Section>
  );
}

const POLICY_HINT: Record<TaskForm['backpressure']['policy'], string> = {
  reject: 'Enqueue fails with a Retry-After',
  throttle: 'Executions beyond max depth are delayed',
  shed: 'A share of executions beyond max depth is dropped (counted)',
  spill: 'Executions beyond max depth are parked and drained back later',
};

export function BackpressureSection({ form, errors, update }: SectionProps) {
  const bp = form.backpressure;
  return (
    <Section id="sec-backpressure" title="Backpressure" description="What enqueue does when a partition is deeper than max depth.">
      <div className={grid}>
        <Field label="Policy" hint={POLICY_HINT[bp.policy]} error={errors['backpressure.policy']}>
          <Select value={bp.policy} onChange={(e) => update((f) => void (f.backpressure.policy = e.target.value as TaskForm['backpressure']['policy']))}>
            {BACKPRESSURE_POLICIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Max depth per partition" error={errors['backpressure.maxDepth']}>
          <NumberInput value={bp.maxDepth} onValue={(v) => update((f) => void (f.backpressure.maxDepth = v))} />
        </Field>
        {bp.policy === 'reject' && (
          <Field label="Retry after (ms)" error={errors['backpressure.retryAfterMs']}>
            <NumberInput value={bp.retryAfterMs} onValue={(v) => update((f) => void (f.backpressure.retryAfterMs = v))} />
          </Field>
        )}
        {bp.policy === 'throttle' && (
          <>
            <Field label="Delay per execution over (ms)" error={errors['backpressure.throttleDelayMs']}>
              <NumberInput value={bp.throttleDelayMs} onValue={(v) => update((f) => void (f.backpressure.throttleDelayMs = v))} />
            </Field>
            <Field label="Max throttle delay (ms)" error={errors['backpressure.throttleMaxDelayMs']}>
              <NumberInput value={bp.throttleMaxDelayMs} onValue={(v) => update((f) => void (f.backpressure.throttleMaxDelayMs = v))} />
            </Field>
          </>
        )}
        {bp.policy === 'shed' && (
          <Field label="Shed (%)" error={errors['backpressure.shedPercent']}>
            <NumberInput value={bp.shedPercent} onValue={(v) => update((f) => void (f.backpressure.shedPercent = v))} />
          </Field>
        )}
      </div>
      <BackpressureStagesFields form={form} errors={errors} update={update} />
    </Section>
  );
}

export function DeadLetterSection({ form, errors, update }: SectionProps) {
  return (
    <Section id="sec-dlq" title="Dead-letter queue" description="Limits on what dead letters are kept.">
      <div className={grid}>
        <Field label="Max dead letters" error={errors['dlq.maxDepth']}>
          <NumberInput value={form.dlq.maxDepth} onValue={(v) => update((f) => void (f.dlq.maxDepth = v))} />
        </Field>
        <Field label="Retention (days)" error={errors['dlq.retentionDays']}>
          <NumberInput value={form.dlq.retentionDays} onValue={(v) => update((f) => void (f.dlq.retentionDays = v))} />
        </Field>
      </div>
    </Section>
  );
}

const THRESHOLDS: { key: ThresholdMetric; label: string; unit: string; scale: number }[] = [
  { key: 'depth', label: 'Depth per partition', unit: 'executions', scale: 1 },
  { key: 'imbalance', label: 'Imbalance (max ÷ mean depth)', unit: 'ratio', scale: 1 },
  { key: 'retryRate', label: 'Retry rate', unit: '%', scale: 100 },
  { key: 'dlqRate', label: 'DLQ rate', unit: '%', scale: 100 },
  { key: 'p99LatencyMs', label: 'p99 latency', unit: 'ms', scale: 1 },
];

/** The task's alert policy fields beside the for-duration: each '' = the fleet's value. */
export type AlertPolicyOrigin = (path: 'thresholds.clearAfterMs' | 'thresholds.hysteresis' | 'thresholds.waitP99Ms' | 'thresholds.keyWaitMs') => ReactNode;
type PolicyField = 'clearAfterMs' | 'hysteresis';

export function ThresholdsSection({
  form,
  errors,
  update,
  origin,
  alertAfterDefault,
  policyOrigin,
  policyDefaults,
}: SectionProps &
  OriginProps & {
    alertAfterDefault?: { value: number; source: string };
    policyOrigin?: AlertPolicyOrigin;
    /** What an empty field means: the fleet's (or built-in) value. */
    policyDefaults?: { clearForMs: number; hysteresis: number; waitP99Ms: { warning: number; critical: number }; keyWaitMs: { warning: number; critical: number } | null };
  }) {
  const pd = policyDefaults ?? {
    clearForMs: DEFAULT_ALERT_POLICY.clearForMs,
    hysteresis: DEFAULT_ALERT_POLICY.hysteresis,
    waitP99Ms: DEFAULT_ALERT_POLICY.waitP99Ms,
    keyWaitMs: DEFAULT_ALERT_POLICY.keyWaitMs,
  };
  const policyInput = (field: PolicyField, label: string, placeholder: number) => (
    <Input
      inputMode="decimal"
      aria-label={label}
      value={form.alertPolicy[field]}
      placeholder={String(placeholder)}
      aria-invalid={errors[`thresholds.${field}`] ? true : undefined}
      onChange={(e) => update((f) => void (f.alertPolicy[field] = e.target.value))}
    />
  );
  // A warning / critical pair of the task's alert policy, two texts ('' = the fleet's).
  type PairField = 'waitWarning' | 'waitCritical' | 'keyWaitWarning' | 'keyWaitCritical';
  const pairInputs = (path: 'waitP99Ms' | 'keyWaitMs', label: string, fields: [PairField, PairField], fallback: { warning: number; critical: number } | null) => (
    <div className="grid grid-cols-2 gap-2">
      {fields.map((field, i) => {
        const line = i === 0 ? 'warning' : 'critical';
        return (
          <Input
            key={field}
            inputMode="numeric"
            aria-label={`${label} ${line} (ms)`}
            value={form.alertPolicy[field]}
            placeholder={fallback ? String(fallback[line]) : 'none'}
            aria-invalid={errors[`thresholds.${path}.${line}`] ? true : undefined}
            onChange={(e) => update((f) => void (f.alertPolicy[field] = e.target.value))}
          />
        );
      })}
    </div>
  );
  const forMs = alertAfterDefault?.value ?? DEFAULT_ALERT_POLICY.forMs;
  return (
    <Section
      id="sec-thresholds"
      title="Thresholds"
      description="Warning and critical lines on the charts and alerts; warning must be below critical. An alert fires once its condition has held for “Alert after” (a minute when empty)."
    >
      <Table>
        <thead>
          <tr>
            <Th>Metric</Th>
            <Th className="w-44">Warning</Th>
            <Th className="w-44">Critical</Th>
            {origin && <Th className="w-48">Source</Th>}
          </tr>
        </thead>
        <tbody>
          {THRESHOLDS.map((t) => {
            const wErr = errors[`thresholds.${t.key}.warning`];
            const cErr = errors[`thresholds.${t.key}.critical`];
            return (
              <tr key={t.key} className="align-top">
                <Td className="text-[13px]">
                  {t.label} <span className="text-[12px] text-subtle">({t.unit})</span>
                </Td>
                <Td>
                  <NumberInput
                    aria-label={`${t.label} warning`}
                    aria-invalid={wErr ? true : undefined}
                    scale={t.scale}
                    value={form.thresholds[t.key].warning}
                    onValue={(v) => update((f) => void (f.thresholds[t.key].warning = v))}
                  />
                  {wErr && <p className="mt-0.5 text-[12px] text-danger">{wErr}</p>}
                </Td>
                <Td>
                  <NumberInput
                    aria-label={`${t.label} critical`}
                    aria-invalid={cErr ? true : undefined}
                    scale={t.scale}
                    value={form.thresholds[t.key].critical}
                    onValue={(v) => update((f) => void (f.thresholds[t.key].critical = v))}
                  />
                  {cErr && <p className="mt-0.5 text-[12px] text-danger">{cErr}</p>}
                </Td>
                {origin && <Td>{origin(`thresholds.${t.key}`)}</Td>}
              </tr>
            );
          })}
        </tbody>
      </Table>
      <div className={`${grid} mt-3`}>
        <Field
          label="Alert after (ms)"
          hint={`How long a breach, hot partition or hot key must hold before its alert fires. Empty: the ${alertAfterDefault?.source ?? 'built-in default'}, ${forMs} (alerts are evaluated every ${ALERT_EVALUATION_INTERVAL_MS / 1000} s).`}
          error={errors['thresholds.alertAfterMs']}
        >
          <Input
            inputMode="numeric"
            value={form.alertAfterMs}
            placeholder={`${forMs} (${alertAfterDefault?.source ?? 'built-in default'})`}
            onChange={(e) => update((f) => void (f.alertAfterMs = e.target.value))}
          />
        </Field>
        <Field
          label="Resolve after (ms)"
          hint="How long the task's alerts must stay clear before they resolve on their own. Empty: the fleet's."
          error={errors['thresholds.clearAfterMs']}
        >
          <div className="flex flex-col gap-1">
            {policyInput('clearAfterMs', 'Resolve after (ms)', pd.clearForMs)}
            {policyOrigin?.('thresholds.clearAfterMs')}
          </div>
        </Field>
        <Field
          label="Hysteresis (0–0.9)"
          hint="Once an alert is open, the value must fall this fraction below the line to count as clear. Empty: the fleet's."
          error={errors['thresholds.hysteresis']}
        >
          <div className="flex flex-col gap-1">
            {policyInput('hysteresis', 'Hysteresis (0–0.9)', pd.hysteresis)}
            {policyOrigin?.('thresholds.hysteresis')}
          </div>
        </Field>
        <Field
          label="p99 wait, ready → claimed (ms): warning / critical"
          hint="The backlog's lines (p99 latency above judges run time). Both empty: the fleet's."
          error={errors['thresholds.waitP99Ms.warning'] ?? errors['thresholds.waitP99Ms.critical'] ?? errors['thresholds.waitP99Ms']}
        >
          <div className="flex flex-col gap-1">
            {pairInputs('waitP99Ms', 'p99 wait', ['waitWarning', 'waitCritical'], pd.waitP99Ms)}
            {policyOrigin?.('thresholds.waitP99Ms')}
          </div>
        </Field>
        <Field
          label="Key wait, any key without its own lines (ms): warning / critical"
          hint={`A group key's oldest due execution waiting past these raises "Key wait" for that key (the ${KEY_WAIT_INHERITED_MAX} longest-waiting keys per task). A key's own lines (Groups › key policies) win. Both empty: the fleet's, else none.`}
          error={errors['thresholds.keyWaitMs.warning'] ?? errors['thresholds.keyWaitMs.critical'] ?? errors['thresholds.keyWaitMs']}
        >
          <div className="flex flex-col gap-1">
            {pairInputs('keyWaitMs', 'Key wait', ['keyWaitWarning', 'keyWaitCritical'], pd.keyWaitMs)}
            {policyOrigin?.('thresholds.keyWaitMs')}
          </div>
        </Field>
      </div>
    </Section>
  );
}
