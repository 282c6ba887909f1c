import type { ReactNode } from 'react';
import { cx } from './class-names';

/** A bordered surface with an optional header row (title + actions). */
export function Panel({
  title,
  actions,
  children,
  className,
  labelledBy,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  labelledBy?: string;
}) {
  return (
    <section aria-labelledby={labelledBy} className={cx('rounded-lg border border-border bg-surface', className)}>
      {(title || actions) && (
        <header className="flex items-center justify-between gap-3 border-b border-border px-3 py-2">
          {title && (
            <h2 id={labelledBy} className="text-[13px] font-semibold">
              {title}
            </h2>
          )}
          {actions && <div className="flex items-center gap-2">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}
