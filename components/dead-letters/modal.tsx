'use client';
// A modal on the native <dialog> (focus trap, Escape and the top layer for free). Open
// while `open` is true; Escape or the close button call onClose.
import { useEffect, useRef, type ReactNode } from 'react';

export function Modal({ open, title, onClose, children, width = 'max-w-xl' }: { open: boolean; title: string; onClose: () => void; children: ReactNode; width?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className={`m-auto w-full ${width} rounded-lg border border-border bg-surface p-0 text-fg shadow-xl backdrop:bg-black/40`}
    >
      {open && (
        <div className="flex flex-col">
          <header className="flex items-center justify-between border-b border-border px-4 py-2.5">
            <h2 className="text-[14px] font-semibold">{title}</h2>
            <button type="button" onClick={onClose} aria-label="Close dialog" className="rounded px-1.5 text-[18px] leading-none text-muted hover:bg-surface-2 hover:text-fg">
              ×
            </button>
          </header>
          <div className="flex flex-col gap-3 p-4 text-[13px]">{children}</div>
        </div>
      )}
    </dialog>
  );
}
