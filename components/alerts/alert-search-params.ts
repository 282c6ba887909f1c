// The Alerts page's URL state: ?status=open&task=&rule=&severity=&alert=<id>. One parser
// for the server page (prefetch) and the client view.
import { ALERT_LIST_STATUSES, ALERT_RULES, type AlertRule } from '@/server/core/alert-evaluation';
import { TASK_NAME_RE } from '@/server/core/task-definition';

export type AlertListStatus = (typeof ALERT_LIST_STATUSES)[number];

export interface AlertParams {
  status: AlertListStatus;
  task?: string;
  rule?: AlertRule;
  severity?: 'warning' | 'critical';
  alert?: number;
}

type Get = (key: string) => string | null | undefined;

export function alertParams(get: Get): AlertParams {
  const status = get('status');
  const task = get('task');
  const rule = get('rule');
  const severity = get('severity');
  const alert = Number(get('alert'));
  return {
    status: (ALERT_LIST_STATUSES as readonly string[]).includes(status ?? '') ? (status as AlertListStatus) : 'open',
    ...(task && TASK_NAME_RE.test(task) ? { task } : {}),
    ...(rule && (ALERT_RULES as readonly string[]).includes(rule) ? { rule: rule as AlertRule } : {}),
    ...(severity === 'warning' || severity === 'critical' ? { severity } : {}),
    ...(Number.isInteger(alert) && alert > 0 ? { alert } : {}),
  };
}

export function alertListQueryInput(p: AlertParams) {
  return {
    status: p.status,
    ...(p.task ? { task: p.task } : {}),
    ...(p.rule ? { rule: p.rule } : {}),
    ...(p.severity ? { severity: p.severity } : {}),
  };
}

export function alertsHref(p: AlertParams): string {
  const q = new URLSearchParams();
  if (p.status !== 'open') q.set('status', p.status);
  if (p.task) q.set('task', p.task);
  if (p.rule) q.set('rule', p.rule);
  if (p.severity) q.set('severity', p.severity);
  if (p.alert) q.set('alert', String(p.alert));
  const s = q.toString();
  return s ? `/alerts?${s}` : '/alerts';
}
