import type { InputHTMLAttributes, SelectHTMLAttributes } from 'react';
import { cx } from './class-names';

const control =
  'h-8 w-full rounded-md border bg-surface px-2.5 text-[13px] text-fg placeholder:text-subtle ' +
  'border-border-strong focus-visible:border-accent aria-[invalid=true]:border-danger disabled:opacity-60';

export function Input({ className, ...rest }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cx(control, className)} {...rest} />;
}

export function Select({ className, ...rest }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={cx(control, 'pr-1.5', className)} {...rest} />;
}
