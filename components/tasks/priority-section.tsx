'use client';
// Limits (issue #19): the task editor's priorities section — the default priority of an
// execution enqueued without one and the aging parameter. The rule is
// server/core/priority.ts; the sentence under the fields says what the values mean now.
import { Field } from '@/components/ui/field';
import { maxOvertakeMs, PRIORITY_MAX } from '@/server/core/priority';
import type { ErrorMap, TaskForm } from './task-form-model';
import { NumberInput } from './number-input';
import { Section } from './task-form-sections';

function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${+(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 3_600_000).toFixed(1)} h`;
}

export function PrioritySection({ form, errors, update }: { form: TaskForm; errors: ErrorMap; update: (fn: (f: TaskForm) => void) => void }) {
  const { agingMs } = form.priority;
  return (
    <Section
      id="sec-priority"
      title="Priorities"
      description={`Producers may give each execution a priority from 0 to ${PRIORITY_MAX}; higher is claimed first, within every limit.`}
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field label="Default priority" hint="For executions enqueued without one" error={errors['priority.default']}>
          <NumberInput value={form.priority.default} onValue={(v) => update((f) => void (f.priority.default = v))} />
        </Field>
        <Field label="Aging (ms per level)" hint="Waiting this long counts as one priority level" error={errors['priority.agingMs']}>
          <NumberInput value={agingMs} onValue={(v) => update((f) => void (f.priority.agingMs = v))} />
        </Field>
      </div>
      <p className="mt-2 text-[12px] text-muted" data-testid="priority-rule">
        Claim order: run time − priority × {duration(agingMs)}. A priority-0 execution is passed by priority-5 work for at most{' '}
        {duration(maxOvertakeMs(0, 5, agingMs))}, then runs ahead of newer work.
      </p>
    </Section>
  );
}
