'use client';
// Limits (issue #19): the task editor's claim order — oldest first, or weighted fair share
// across the keys of one group (server/core/fair-share.ts has the rule), with the group
// and its keys' weights. The sentence under the fields says what the values mean now.
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import type { ErrorMap, TaskForm } from './task-form-model';
import { parseWeights } from './task-form-model';
import { Section } from './task-form-sections';

export function FairShareSection({ form, errors, update }: { form: TaskForm; errors: ErrorMap; update: (fn: (f: TaskForm) => void) => void }) {
  const named = form.groups.filter((g) => g.name.trim() !== '');
  const gi = form.fairGroup ? form.groups.findIndex((g) => g.name.trim() === form.fairGroup) : 0;
  const group = gi >= 0 ? form.groups[gi] : undefined;
  const weights = group ? parseWeights(group.weights).weights : {};
  const heavy = Object.entries(weights).sort((a, b) => b[1] - a[1])[0];
  return (
    <Section
      id="sec-fair-share"
      title="Claim order"
      description="Who goes first among what the limits allow, when executions wait for the task's capacity."
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field label="Order" hint="Fair share needs a concurrency group" error={errors['order']}>
          <Select value={form.order} onChange={(e) => update((f) => void (f.order = e.target.value as TaskForm['order']))} aria-label="Order">
            <option value="fifo">Oldest first (priority, then age)</option>
            <option value="fair">Fair share across keys</option>
          </Select>
        </Field>
        <Field label="Shared by group" hint="Whose keys share the task" error={errors['fairGroup']}>
          <Select value={form.fairGroup} onChange={(e) => update((f) => void (f.fairGroup = e.target.value))} disabled={form.order !== 'fair'} aria-label="Shared by group">
            <option value="">{named[0] ? `First group (${named[0].name.trim()})` : 'First group'}</option>
            {named.map((g) => (
              <option key={g.uid} value={g.name.trim()}>
                {g.name.trim()}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Weights" hint="key=weight, comma-separated; others weigh 1" error={group ? errors[`groups.${gi}.weights`] : undefined}>
          <Input
            value={group?.weights ?? ''}
            disabled={form.order !== 'fair' || !group}
            onChange={(e) => update((f) => void (f.groups[gi]!.weights = e.target.value))}
            className="font-mono"
            placeholder="acme=3, globex=2"
            aria-label="Weights"
          />
        </Field>
      </div>
      <p className="mt-2 text-[12px] text-muted" data-testid="fair-share-rule">
        {form.order === 'fair'
          ? `Free slots go to the key of ${group?.name.trim() || 'the first group'} furthest below its share: the capacity split by weight among the keys with work waiting${
              heavy ? ` (${heavy[0]} gets ${heavy[1]}× the share of a key of weight 1)` : ''
            }. Every limit still holds; a slot nobody below their share can use goes to the others.`
          : 'Claim order alone: higher priority first, then the oldest. One busy key can take all the free slots.'}
      </p>
    </Section>
  );
}
