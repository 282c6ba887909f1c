import type { ReactNode } from 'react';
import { cx } from './class-names';
import type { Tone } from './badge';

const TONES: Record<Exclude<Tone, 'neutral'>, string> = {
  accent: 'border-accent/40 bg-accent-soft',
  success: 'border-success/40 bg-success-soft',
  warning: 'border-warning/40 bg-warning-soft',
  danger: 'border-danger/40 bg-danger-soft text-danger',
};

/** An inline message; danger ones are announced (role="alert"). */
export function Callout({ tone = 'accent', children, className }: { tone?: Exclude<Tone, 'neutral'>; children: ReactNode; className?: string }) {
  return (
    <div
      role={tone === 'danger' ? 'alert' : 'status'}
      className={cx('rounded-md border px-3 py-2 text-[13px]', TONES[tone], className)}
    >
      {children}
    </div>
  );
}
