// "Add override" from the Keys view or an alert opens the task editor with
// `?override=group=key`: the draft gets an override row for that key (at the group's
// limit, for the operator to change), or points at the row the key already has. The
// draft is then unsaved like any edit; nothing is applied until Review → Apply.
import { parseOverrideParam } from '@/server/core/key-views';
import { newUid, type TaskForm } from './task-form-model';

export type OverridePrefill =
  | { status: 'added' | 'exists'; group: string; key: string; uid: string; form: TaskForm }
  | { status: 'no-group'; group: string; key: string; form: TaskForm }
  | null;

export function prefillOverride(form: TaskForm, param: string | null | undefined): OverridePrefill {
  const asked = parseOverrideParam(param);
  if (!asked) return null;
  const gi = form.groups.findIndex((g) => g.name === asked.group);
  if (gi < 0) return { status: 'no-group', ...asked, form };
  const existing = form.groups[gi]!.overrides.find((o) => o.key === asked.key);
  if (existing) return { status: 'exists', ...asked, uid: existing.uid, form };
  const next = structuredClone(form);
  const uid = newUid('o');
  next.groups[gi]!.overrides.push({ uid, key: asked.key, limit: next.groups[gi]!.limit });
  return { status: 'added', ...asked, uid, form: next };
}
