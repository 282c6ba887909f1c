import type { AlertSeverity } from '@/server/core/alert-evaluation';
import type { AlertStatus } from '@/server/core/alert-rules';
import { Badge } from '@/components/ui/badge';
import { cx } from '@/components/ui/class-names';

export function SeverityBadge({ severity }: { severity: AlertSeverity }) {
  return <Badge tone={severity === 'critical' ? 'danger' : 'warning'}>{severity === 'critical' ? 'Critical' : 'Warning'}</Badge>;
}

const STATUS_CLASS: Record<AlertStatus, string> = {
  pending: 'text-muted',
  firing: 'text-danger',
  acknowledged: 'text-warning',
  resolved: 'text-success',
};

export function StatusPill({ status }: { status: AlertStatus }) {
  return (
    <span className={cx('inline-flex items-center gap-1 text-[12px] font-medium capitalize', STATUS_CLASS[status])} data-testid="alert-status">
      <span className={cx('inline-block h-1.5 w-1.5 rounded-full bg-current', status === 'firing' && 'animate-pulse')} />
      {status}
    </span>
  );
}
