'use client';
// The step between "I changed something" and a new version: the diff against the
// version the change is based on, a change message (required, shown in history), and
// Apply. Used by the task editor, delete and rollback. The task editor also offers "Apply
// with guard" with a bake time and the rule that rolls it back: any alert rule of the task
// or one named, at critical or at warning-or-critical (server/core/guarded-rollout.ts; the
// CLI's --guard-rule and --guard-severity).
import { useState, type ReactNode } from 'react';
import type { TaskChangeGroup } from '@/server/core/config-change-view';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { BAKE_CHOICES_MS, DEFAULT_BAKE_MS, DEFAULT_GUARD_RULE, GUARD_TASK_RULES, describeGuardRule, formatBake, type GuardRule } from '@/server/core/guarded-rollout';
import { ALERT_RULE_LABEL } from '@/server/core/alert-evaluation';
import { ConfigDiffView } from './config-diff-view';

export function ApplyReview({
  title,
  basedOn,
  changes,
  defaultMessage = '',
  applyLabel,
  pending,
  error,
  extra,
  onApply,
  onApplyWithGuard,
  onCancel,
}: {
  title: string;
  basedOn: number | null;
  changes: TaskChangeGroup[];
  defaultMessage?: string;
  applyLabel?: string;
  pending: boolean;
  error?: ReactNode;
  extra?: ReactNode;
  onApply: (message: string) => void;
  /** Offer "Apply with guard" (issue 20): the version bakes for the chosen time and rolls back by itself if the chosen rule fires. */
  onApplyWithGuard?: (message: string, bakeMs: number, rule: GuardRule) => void;
  onCancel: () => void;
}) {
  const [message, setMessage] = useState(defaultMessage);
  const [bakeMs, setBakeMs] = useState<number>(DEFAULT_BAKE_MS);
  const [guardRule, setGuardRule] = useState<GuardRule>(DEFAULT_GUARD_RULE);
  const [tried, setTried] = useState(false);
  const missing = message.trim() === '';
  const next = basedOn === null ? 1 : basedOn + 1;
  return (
    <section aria-label={title} className="rounded-lg border border-accent/50 bg-surface shadow-sm">
      <header className="flex flex-wrap items-center justify-between gap-2 border-b border-border px-3 py-2">
        <h2 className="text-[13px] font-semibold">{title}</h2>
        <span className="text-[12px] text-muted">
          {basedOn === null ? 'First version' : `Against version ${basedOn} (current)`}
        </span>
      </header>
      <div className="max-h-[55vh] overflow-y-auto p-3">
        <ConfigDiffView changes={changes} />
      </div>
      <form
        className="flex flex-col gap-3 border-t border-border p-3"
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (!missing) onApply(message.trim());
        }}
      >
        {extra}
        <Field label="Change message" hint="Why this change; it is kept with the version in the history." error={tried && missing ? 'describe the change' : undefined}>
          <Input value={message} onChange={(e) => setMessage(e.target.value)} maxLength={500} placeholder="e.g. Lower acme's tenant limit during the incident" autoFocus />
        </Field>
        {error && <Callout tone="danger">{error}</Callout>}
        <div className="flex flex-wrap items-center justify-end gap-2">
          <Button onClick={onCancel} disabled={pending} className={onApplyWithGuard ? 'mr-auto' : undefined}>
            Back to editing
          </Button>
          {onApplyWithGuard && (
            <span className="flex flex-wrap items-center gap-2" data-testid="apply-with-guard">
              <label className="flex flex-wrap items-center gap-1.5 text-[12px] text-muted" title={`Rolls the task back by itself if ${describeGuardRule(guardRule)} of it fires during the bake`}>
                <span className="whitespace-nowrap">Roll back on</span>
                <span className="flex flex-wrap items-center gap-1.5">
                  <Select
                    value={guardRule.rule ?? ''}
                    onChange={(e) => setGuardRule({ ...guardRule, rule: e.target.value === '' ? null : e.target.value })}
                    aria-label="Guard rule"
                    className="w-auto!"
                  >
                    <option value="">any alert rule</option>
                    {GUARD_TASK_RULES.map((r) => (
                      <option key={r} value={r}>
                        {ALERT_RULE_LABEL[r]}
                      </option>
                    ))}
                  </Select>
                  <Select
                    value={guardRule.severity}
                    onChange={(e) => setGuardRule({ ...guardRule, severity: e.target.value === 'warning' ? 'warning' : 'critical' })}
                    aria-label="Guard severity"
                    className="w-auto!"
                  >
                    <option value="critical">at critical</option>
                    <option value="warning">at warning or critical</option>
                  </Select>
                </span>
              </label>
              <label className="flex items-center gap-1.5 text-[12px] text-muted">
                Bake
                <Select value={bakeMs} onChange={(e) => setBakeMs(Number(e.target.value))} aria-label="Bake time" className="w-auto!">
                  {BAKE_CHOICES_MS.map((ms) => (
                    <option key={ms} value={ms}>
                      {formatBake(ms)}
                    </option>
                  ))}
                </Select>
              </label>
              <Button
                disabled={pending}
                onClick={() => {
                  setTried(true);
                  if (!missing) onApplyWithGuard(message.trim(), bakeMs, guardRule);
                }}
              >
                {pending ? 'Applying…' : 'Apply with guard'}
              </Button>
            </span>
          )}
          <Button type="submit" variant="primary" disabled={pending}>
            {pending ? 'Applying…' : (applyLabel ?? `Apply as version ${next}`)}
          </Button>
        </div>
      </form>
    </section>
  );
}
