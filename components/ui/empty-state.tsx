import type { ReactNode } from 'react';

/** What a page shows when there is honestly nothing yet — and how to get something. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-2 px-6 py-14 text-center">
      <p className="text-[14px] font-medium">{title}</p>
      {children && <div className="max-w-xl text-[13px] text-muted">{children}</div>}
    </div>
  );
}

/** A shell command shown inline, selectable as one unit. */
export function Command({ children }: { children: ReactNode }) {
  return (
    <code className="rounded border border-border bg-surface-2 px-1.5 py-0.5 font-mono text-[12px] text-fg select-all">
      {children}
    </code>
  );
}
