'use client';
// Issue 23's parts of the task editor, kept in their own file: the staged-backpressure
// fields (inside the Backpressure section) and the Circuit breaker section.
import { Field } from '@/components/ui/field';
import { NumberInput } from './number-input';
import { Section } from './task-form-sections';
import type { ErrorMap, TaskForm } from './task-form-model';

type Update = (fn: (f: TaskForm) => void) => void;
interface SectionProps {
  form: TaskForm;
  errors: ErrorMap;
  update: Update;
}

const grid = 'grid grid-cols-1 gap-3 sm:grid-cols-2';

/** Staged backpressure: off = one stage at max depth; on = throttle, then the policy. */
export function BackpressureStagesFields({ form, errors, update }: SectionProps) {
  const st = form.backpressure.stages;
  const max = form.backpressure.maxDepth;
  const at = (pct: number) => (Number.isFinite(max) && Number.isFinite(pct) ? Math.ceil((max * pct) / 100).toLocaleString('en-US') : '?');
  return (
    <div className="mt-3 border-t border-border pt-3">
      <label className="flex items-center gap-2 text-[13px]">
        <input
          type="checkbox"
          checked={st !== undefined}
          onChange={(e) =>
            update((f) => {
              if (e.target.checked) f.backpressure.stages = { throttleAtPercent: 80, policyAtPercent: 95 };
              else delete f.backpressure.stages;
            })
          }
          data-testid="bp-stages-toggle"
        />
        Staged: throttle first, then the policy
      </label>
      {st && (
        <div className={`${grid} mt-2`}>
          <Field
            label="Throttle from (% of max depth)"
            hint={`From depth ${at(st.throttleAtPercent)}: accepted, delayed (the throttle delays above) and told Retry-After`}
            error={errors['backpressure.stages.throttleAtPercent']}
          >
            <NumberInput value={st.throttleAtPercent} onValue={(v) => update((f) => void (f.backpressure.stages!.throttleAtPercent = v))} />
          </Field>
          <Field label="Policy from (% of max depth)" hint={`From depth ${at(st.policyAtPercent)}: the policy above applies`} error={errors['backpressure.stages.policyAtPercent']}>
            <NumberInput value={st.policyAtPercent} onValue={(v) => update((f) => void (f.backpressure.stages!.policyAtPercent = v))} />
          </Field>
        </div>
      )}
    </div>
  );
}

export function CircuitBreakerSection({ form, errors, update }: SectionProps) {
  const cb = form.circuitBreaker;
  return (
    <Section
      id="sec-breaker"
      title="Circuit breaker"
      description="Stop claiming the task while its handler keeps failing; queued executions wait without using attempts, then a few probes decide."
    >
      <label className="mb-2 flex items-center gap-2 text-[13px]">
        <input type="checkbox" checked={cb.enabled} onChange={(e) => update((f) => void (f.circuitBreaker.enabled = e.target.checked))} data-testid="breaker-enabled" />
        Enabled
      </label>
      <div className={grid}>
        <Field label="Trip at failure rate (0–1)" hint="Failed or timed-out share of the window" error={errors['circuitBreaker.failureRate']}>
          <NumberInput value={cb.failureRate} onValue={(v) => update((f) => void (f.circuitBreaker.failureRate = v))} />
        </Field>
        <Field label="Window (ms)" error={errors['circuitBreaker.windowMs']}>
          <NumberInput value={cb.windowMs} onValue={(v) => update((f) => void (f.circuitBreaker.windowMs = v))} />
        </Field>
        <Field label="Min executions in the window" hint="Fewer never trip it" error={errors['circuitBreaker.minCalls']}>
          <NumberInput value={cb.minCalls} onValue={(v) => update((f) => void (f.circuitBreaker.minCalls = v))} />
        </Field>
        <Field label="Cool-down (ms)" hint="Open this long before probing" error={errors['circuitBreaker.coolDownMs']}>
          <NumberInput value={cb.coolDownMs} onValue={(v) => update((f) => void (f.circuitBreaker.coolDownMs = v))} />
        </Field>
        <Field label="Half-open probes" hint="All must succeed to close" error={errors['circuitBreaker.probes']}>
          <NumberInput value={cb.probes} onValue={(v) => update((f) => void (f.circuitBreaker.probes = v))} />
        </Field>
      </div>
    </Section>
  );
}
