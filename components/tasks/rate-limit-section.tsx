'use client';
// Limits (issue #19): the task editor's rate limits — the task's own rate (with the
// payload path of an execution's cost) as a section, and each group's rate per key with
// per-key overrides inside the group (GroupRateFields). The rule is
// server/core/rate-limit.ts; the sentence under the fields says what the values allow.
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { formatRate, maxPerWindow, type RateSpec } from '@/server/core/rate-limit';
import { newUid, type ErrorMap, type RateForm, type TaskForm } from './task-form-model';
import { NumberInput } from './number-input';
import { Section } from './task-form-sections';

type Update = (fn: (f: TaskForm) => void) => void;

const valid = (r: RateForm) => [r.limit, r.per, r.burst].every((x) => Number.isFinite(x) && x >= 0) && r.limit > 0 && r.per > 0;

/** "At most 12 start in any 1 s; steady 10/s, burst 2." */
function rateSentence(r: RateSpec): string {
  const per = r.per % 1000 === 0 ? `${r.per / 1000} s` : `${r.per} ms`;
  return `At most ${maxPerWindow(r).toLocaleString('en-US')} start in any ${per}; steady ${formatRate(r)}.`;
}

function RateFields({ rate, errorsAt, errors, onChange, label }: { rate: RateForm; errorsAt: string; errors: ErrorMap; onChange: (fn: (r: RateForm) => void) => void; label: string }) {
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
      <Field label={`${label} limit`} hint="Executions (cost units) per interval" error={errors[`${errorsAt}.limit`]}>
        <NumberInput value={rate.limit} onValue={(v) => onChange((r) => void (r.limit = v))} />
      </Field>
      <Field label={`${label} per (ms)`} hint="1000 = per second, 60000 = per minute" error={errors[`${errorsAt}.per`]}>
        <NumberInput value={rate.per} onValue={(v) => onChange((r) => void (r.per = v))} />
      </Field>
      <Field label={`${label} burst`} hint="Extra starts allowed at once when idle" error={errors[`${errorsAt}.burst`]}>
        <NumberInput value={rate.burst} onValue={(v) => onChange((r) => void (r.burst = v))} />
      </Field>
    </div>
  );
}

/** The task's own rate, cluster-wide, and the cost path shared by every rate of the task. */
export function RateLimitSection({ form, errors, update }: { form: TaskForm; errors: ErrorMap; update: Update }) {
  const r = form.rate;
  return (
    <Section
      id="sec-rate"
      title="Rate limit"
      description="Executions started per interval, cluster-wide, kept by the claim. Groups may also limit each key's rate (in the group)."
    >
      <label className="flex items-center gap-2 text-[13px]">
        <input type="checkbox" checked={r.enabled} onChange={(e) => update((f) => void (f.rate.enabled = e.target.checked))} data-testid="task-rate-toggle" />
        Limit the rate of the whole task
      </label>
      {r.enabled && (
        <div className="mt-2">
          <RateFields rate={r} errorsAt="rate" errors={errors} label="Task rate" onChange={(fn) => update((f) => fn(f.rate))} />
          <p className="mt-2 text-[12px] text-muted" data-testid="task-rate-rule">
            {valid(r) ? rateSentence(r) : 'Enter a limit, an interval and a burst.'}
          </p>
        </div>
      )}
      <div className="mt-3 max-w-md">
        <Field label="Cost path" hint="Payload number each execution costs in every rate of the task; empty = 1 each" error={errors['rateCostPath']}>
          <Input value={form.rateCostPath} onChange={(e) => update((f) => void (f.rateCostPath = e.target.value))} placeholder="weight" className="font-mono" />
        </Field>
      </div>
    </Section>
  );
}

/** A group's rate per key, with per-key overrides (each field empty = the group's). */
export function GroupRateFields({ form, gi, errors, update, readOnly }: { form: TaskForm; gi: number; errors: ErrorMap; update: Update; readOnly: boolean }) {
  const g = form.groups[gi]!;
  const r = g.rate;
  return (
    <div className="border-t border-border p-3">
      <label className="flex items-center gap-2 text-[13px]">
        <input type="checkbox" checked={r.enabled} onChange={(e) => update((f) => void (f.groups[gi]!.rate.enabled = e.target.checked))} aria-label={`Rate limit per key of ${g.name || `group ${gi + 1}`}`} />
        Rate limit per key
      </label>
      {r.enabled && (
        <div className="mt-2 flex flex-col gap-2">
          <RateFields rate={r} errorsAt={`groups.${gi}.rate`} errors={errors} label="Rate" onChange={(fn) => update((f) => fn(f.groups[gi]!.rate))} />
          <p className="text-[12px] text-muted">{valid(r) ? `Each key: ${rateSentence(r)}` : 'Enter a limit, an interval and a burst.'}</p>
          <div className="flex max-w-2xl items-center justify-between">
            <span className="text-[12px] font-medium text-muted">
              Per-key rate overrides <span className="font-normal text-subtle">(empty fields keep the group&apos;s)</span>
            </span>
            {!readOnly && (
              <Button size="sm" onClick={() => update((f) => void f.groups[gi]!.rate.overrides.push({ uid: newUid('r'), key: '', limit: '', per: '', burst: '' }))}>
                Add rate override
              </Button>
            )}
          </div>
          {r.overrides.length > 0 && (
            <table className="w-full max-w-2xl border-collapse text-[13px]" aria-label={`Rate overrides of ${g.name}`}>
              <thead>
                <tr className="text-left text-[11px] font-semibold tracking-wide text-muted uppercase">
                  <th scope="col" className="pb-1 font-semibold">Key</th>
                  <th scope="col" className="w-28 pb-1 font-semibold">Limit</th>
                  <th scope="col" className="w-28 pb-1 font-semibold">Per (ms)</th>
                  <th scope="col" className="w-28 pb-1 font-semibold">Burst</th>
                  {!readOnly && <th scope="col" className="w-20 pb-1" aria-label="Actions" />}
                </tr>
              </thead>
              <tbody>
                {r.overrides.map((o, oi) => {
                  const at = `groups.${gi}.rate.overrides.#${o.uid}`;
                  const cell = (k: 'limit' | 'per' | 'burst', placeholder: number) => (
                    <td className="py-1 pr-2">
                      <Input
                        aria-label={`Rate ${k} for ${o.key || `override ${oi + 1}`} in ${g.name}`}
                        aria-invalid={errors[`${at}.${k}`] ? true : undefined}
                        inputMode="numeric"
                        value={o[k]}
                        placeholder={Number.isFinite(placeholder) ? String(placeholder) : ''}
                        onChange={(e) => update((f) => void (f.groups[gi]!.rate.overrides[oi]![k] = e.target.value))}
                      />
                      {errors[`${at}.${k}`] && <p className="mt-0.5 text-[12px] text-danger">{errors[`${at}.${k}`]}</p>}
                    </td>
                  );
                  return (
                    <tr key={o.uid} className="align-top">
                      <td className="py-1 pr-2">
                        <Input
                          aria-label={`Rate override key ${oi + 1} of ${g.name}`}
                          aria-invalid={errors[`${at}.key`] ? true : undefined}
                          value={o.key}
                          className="font-mono"
                          placeholder="acme"
                          onChange={(e) => update((f) => void (f.groups[gi]!.rate.overrides[oi]!.key = e.target.value))}
                        />
                        {errors[`${at}.key`] && <p className="mt-0.5 text-[12px] text-danger">{errors[`${at}.key`]}</p>}
                      </td>
                      {cell('limit', r.limit)}
                      {cell('per', r.per)}
                      {cell('burst', r.burst)}
                      {!readOnly && (
                        <td className="py-1 text-right">
                          <Button size="sm" variant="ghost" aria-label={`Remove rate override ${o.key}`} onClick={() => update((f) => void f.groups[gi]!.rate.overrides.splice(oi, 1))}>
                            Remove
                          </Button>
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}
