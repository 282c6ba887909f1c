'use client';
// Concurrency groups: add / remove a group, its limit and key path, and a table of
// per-key overrides (add, edit in place, remove). Errors come keyed by form path
// (task-form-model.ts), override rows by their stable id.
import { Button } from '@/components/ui/button';
import { cx } from '@/components/ui/class-names';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { keyPolicyRow, newGroupRate, newUid, type ErrorMap, type KeyPolicyRow, type TaskForm } from './task-form-model';
import { Select } from '@/components/ui/input';
import { Badge } from '@/components/ui/badge';
import { GroupRateFields } from './rate-limit-section';
import { NumberInput } from './number-input';
import { MAX_GROUPS } from '@/server/core/task-definition';

type Update = (fn: (f: TaskForm) => void) => void;

/** A key policy field's value when the key does not set it, and where that comes from. */
export type KeyFallback = (field: KeyPolicyField) => { value: string; source: string };
export type KeyPolicyField =
  | 'maxAttempts'
  | 'backoff'
  | 'baseDelayMs'
  | 'maxDelayMs'
  | 'jitter'
  | 'waitWarning'
  | 'waitCritical'
  | 'timeoutMs'
  | 'alertAfterMs'
  | 'clearAfterMs'
  | 'hysteresis';

const KEY_FIELDS: { field: KeyPolicyField; label: string }[] = [
  { field: 'maxAttempts', label: 'Max attempts' },
  { field: 'backoff', label: 'Backoff' },
  { field: 'baseDelayMs', label: 'Base delay (ms)' },
  { field: 'maxDelayMs', label: 'Max delay (ms)' },
  { field: 'jitter', label: 'Jitter (0–1)' },
  { field: 'timeoutMs', label: 'Timeout (ms)' },
  { field: 'waitWarning', label: 'Wait warning (ms)' },
  { field: 'waitCritical', label: 'Wait critical (ms)' },
  { field: 'alertAfterMs', label: 'Alert after (ms)' },
  { field: 'clearAfterMs', label: 'Resolve after (ms)' },
  { field: 'hysteresis', label: 'Hysteresis (0–0.9)' },
];

/** One key's policy: each field blank inherits (its effective value and source shown under it). */
function KeyPolicyCard({
  row,
  group,
  at,
  errors,
  readOnly,
  fallback,
  onChange,
  onRemove,
  index,
}: {
  row: KeyPolicyRow;
  group: string;
  at: string;
  errors: ErrorMap;
  readOnly: boolean;
  fallback: KeyFallback;
  onChange: (fn: (r: KeyPolicyRow) => void) => void;
  onRemove: () => void;
  index: number;
}) {
  const keyErr = errors[`${at}.key`];
  const waitSet = row.waitWarning.trim() !== '' || row.waitCritical.trim() !== '';
  return (
    <div className="rounded-md border border-border p-2" data-testid={`key-policy-${group}-${row.key}`}>
      <div className="mb-2 flex flex-wrap items-start gap-2">
        <div className="min-w-0 flex-1">
          <Input
            aria-label={`Policy key ${index + 1} of ${group}`}
            aria-invalid={keyErr ? true : undefined}
            value={row.key}
            className="font-mono"
            placeholder="acme"
            readOnly={readOnly}
            onChange={(e) => onChange((r) => void (r.key = e.target.value))}
          />
          {keyErr && <p className="mt-0.5 text-[12px] text-danger">{keyErr}</p>}
        </div>
        {!readOnly && (
          <Button size="sm" variant="ghost" aria-label={`Remove policy ${row.key}`} onClick={onRemove}>
            Remove
          </Button>
        )}
      </div>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-6">
        {KEY_FIELDS.map(({ field, label }) => {
          const err = errors[`${at}.${field}`];
          const fb = fallback(field);
          // The wait lines are a pair: set together or inherited together.
          const own = field === 'waitWarning' || field === 'waitCritical' ? waitSet : row[field] !== '';
          const shownLabel = `${label} for ${row.key || `key ${index + 1}`} in ${group}`;
          return (
            <label key={field} className="flex min-w-0 flex-col gap-0.5 text-[12px] text-muted">
              <span>{label}</span>
              {field === 'backoff' ? (
                <Select
                  aria-label={shownLabel}
                  value={row.backoff}
                  disabled={readOnly}
                  onChange={(e) => onChange((r) => void (r.backoff = e.target.value as KeyPolicyRow['backoff']))}
                >
                  <option value="">inherit</option>
                  <option value="fixed">fixed</option>
                  <option value="exponential">exponential</option>
                </Select>
              ) : (
                <Input
                  inputMode="decimal"
                  aria-label={shownLabel}
                  aria-invalid={err ? true : undefined}
                  value={row[field]}
                  placeholder={fb.value}
                  readOnly={readOnly}
                  onChange={(e) => onChange((r) => void (r[field] = e.target.value))}
                />
              )}
              <span className="flex flex-wrap items-center gap-1 text-[11px] text-subtle" data-testid={`key-origin-${field}`}>
                {own ? (
                  <>
                    <Badge tone="accent">key</Badge>
                    <span>{`over ${fb.value} · ${fb.source}`}</span>
                    {!readOnly && (
                      <button
                        type="button"
                        className="text-accent hover:underline"
                        aria-label={`Use the default for ${label} of ${row.key || `key ${index + 1}`} in ${group}`}
                        onClick={(e) => {
                          // Inside a <label>: the click must not focus the input after clearing it.
                          e.preventDefault();
                          onChange((r) => {
                            if (field === 'waitWarning' || field === 'waitCritical') Object.assign(r, { waitWarning: '', waitCritical: '' });
                            else r[field] = '';
                          });
                        }}
                      >
                        Use default
                      </button>
                    )}
                  </>
                ) : (
                  <span>{`${fb.value} · ${fb.source}`}</span>
                )}
              </span>
              {err && <span className="text-[12px] text-danger">{err}</span>}
            </label>
          );
        })}
      </div>
    </div>
  );
}

export function GroupsEditor({
  form,
  errors,
  update,
  readOnly,
  highlightUid = null,
  keyFallback,
}: {
  /** Key policy fields' inherited values and sources (the task's, else the fleet's). */
  keyFallback: KeyFallback;
  form: TaskForm;
  errors: ErrorMap;
  update: Update;
  readOnly: boolean;
  /** The override row an "Add override" link is about: marked, its limit focused. */
  highlightUid?: string | null;
}) {
  return (
    <div className="flex flex-col gap-3">
      {form.groups.length === 0 && (
        <p className="text-[12px] text-muted">
          No groups: only the task limit applies. Add one to cap running executions per key, e.g. per tenant.
        </p>
      )}
      {form.groups.map((g, gi) => (
        <fieldset key={g.uid} className="rounded-md border border-border" aria-label={`Group ${g.name || gi + 1}`}>
          <div className="grid grid-cols-2 items-start gap-3 border-b border-border bg-surface-2/60 p-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,8rem)_minmax(0,1.2fr)_auto]">
            <Field label="Group name" error={errors[`groups.${gi}.name`]}>
              <Input value={g.name} onChange={(e) => update((f) => void (f.groups[gi]!.name = e.target.value))} placeholder="tenant" />
            </Field>
            <Field label="Limit per key" error={errors[`groups.${gi}.limit`]}>
              <NumberInput value={g.limit} onValue={(v) => update((f) => void (f.groups[gi]!.limit = v))} />
            </Field>
            <Field label="Key path" hint="Payload path of the key, unless the producer passes it" error={errors[`groups.${gi}.keyPath`]} className="col-span-2 sm:col-span-1">
              <Input value={g.keyPath} onChange={(e) => update((f) => void (f.groups[gi]!.keyPath = e.target.value))} placeholder="tenant.id" className="font-mono" />
            </Field>
            {!readOnly && (
              <Button
                variant="danger"
                size="sm"
                className="col-span-2 justify-self-start sm:col-span-1 sm:mt-[22px]"
                aria-label={`Remove group ${g.name}`}
                onClick={() => update((f) => void f.groups.splice(gi, 1))}
              >
                Remove
              </Button>
            )}
          </div>
          <div className="p-3">
            <div className="mb-1.5 flex max-w-2xl items-center justify-between">
              <span className="text-[12px] font-medium text-muted">
                Per-key overrides <span className="font-normal text-subtle">(win over the group limit)</span>
              </span>
              {!readOnly && (
                <Button
                  size="sm"
                  onClick={() => update((f) => void f.groups[gi]!.overrides.push({ uid: newUid('o'), key: '', limit: g.limit }))}
                >
                  Add override
                </Button>
              )}
            </div>
            {g.overrides.length === 0 ? (
              <p className="text-[12px] text-subtle">Every key gets {Number.isFinite(g.limit) ? g.limit : 'the group limit'}.</p>
            ) : (
              <table className="w-full max-w-2xl border-collapse text-[13px]" aria-label={`Overrides of ${g.name}`}>
                <thead>
                  <tr className="text-left text-[11px] font-semibold tracking-wide text-muted uppercase">
                    <th scope="col" className="pb-1 font-semibold">Key</th>
                    <th scope="col" className="w-40 pb-1 font-semibold">Limit</th>
                    {!readOnly && <th scope="col" className="w-20 pb-1" aria-label="Actions" />}
                  </tr>
                </thead>
                <tbody>
                  {g.overrides.map((o, oi) => {
                    const at = `groups.${gi}.overrides.#${o.uid}`;
                    const keyErr = errors[`${at}.key`];
                    const limitErr = errors[`${at}.limit`];
                    return (
                      <tr key={o.uid} className={cx('align-top', o.uid === highlightUid && 'bg-accent-soft')} data-testid={o.uid === highlightUid ? 'override-highlight' : undefined}>
                        <td className="py-1 pr-2">
                          <Input
                            aria-label={`Override key ${oi + 1} of ${g.name}`}
                            aria-invalid={keyErr ? true : undefined}
                            value={o.key}
                            className="font-mono"
                            placeholder="acme"
                            onChange={(e) => update((f) => void (f.groups[gi]!.overrides[oi]!.key = e.target.value))}
                          />
                          {keyErr && <p className="mt-0.5 text-[12px] text-danger">{keyErr}</p>}
                        </td>
                        <td className="py-1 pr-2">
                          <NumberInput
                            aria-label={`Limit for ${o.key || `override ${oi + 1}`} in ${g.name}`}
                            aria-invalid={limitErr ? true : undefined}
                            value={o.limit}
                            autoFocus={o.uid === highlightUid}
                            onValue={(v) => update((f) => void (f.groups[gi]!.overrides[oi]!.limit = v))}
                          />
                          {limitErr && <p className="mt-0.5 text-[12px] text-danger">{limitErr}</p>}
                        </td>
                        {!readOnly && (
                          <td className="py-1 text-right">
                            <Button
                              size="sm"
                              variant="ghost"
                              aria-label={`Remove override ${o.key}`}
                              onClick={() => update((f) => void f.groups[gi]!.overrides.splice(oi, 1))}
                            >
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
            <div className="mt-3 mb-1.5 flex flex-wrap items-center justify-between gap-2">
              <span className="text-[12px] font-medium text-muted">
                Per-key policies <span className="font-normal text-subtle">(a key&apos;s own retry and wait lines; blank fields follow the task)</span>
              </span>
              {!readOnly && (
                <Button size="sm" onClick={() => update((f) => void f.groups[gi]!.keyPolicies.push(keyPolicyRow('', undefined)))}>
                  Add key policy
                </Button>
              )}
            </div>
            {g.keyPolicies.length === 0 ? (
              <p className="text-[12px] text-subtle">Every key retries and is judged like the task.</p>
            ) : (
              <div className="flex flex-col gap-2">
                {g.keyPolicies.map((r, ri) => (
                  <KeyPolicyCard
                    key={r.uid}
                    row={r}
                    index={ri}
                    group={g.name || `group ${gi + 1}`}
                    at={`groups.${gi}.keyPolicies.#${r.uid}`}
                    errors={errors}
                    readOnly={readOnly}
                    fallback={keyFallback}
                    onChange={(fn) => update((f) => fn(f.groups[gi]!.keyPolicies[ri]!))}
                    onRemove={() => update((f) => void f.groups[gi]!.keyPolicies.splice(ri, 1))}
                  />
                ))}
              </div>
            )}
          </div>
          {/* Limits (issue #19) */}
          <GroupRateFields form={form} gi={gi} errors={errors} update={update} readOnly={readOnly} />
        </fieldset>
      ))}
      {!readOnly && (
        <div>
          <Button
            onClick={() => update((f) => void f.groups.push({ uid: newUid('g'), name: '', limit: 1, keyPath: '', overrides: [], weights: '', keyPolicies: [], rate: newGroupRate() }))}
            disabled={form.groups.length >= MAX_GROUPS}
            title={form.groups.length >= MAX_GROUPS ? `At most ${MAX_GROUPS} groups per task` : undefined}
          >
            Add group
          </Button>
        </div>
      )}
    </div>
  );
}
