import type { ButtonHTMLAttributes } from 'react';
import { cx } from './class-names';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';
type Size = 'sm' | 'md';

const VARIANTS: Record<Variant, string> = {
  primary: 'bg-accent text-accent-fg hover:bg-accent-hover border-transparent',
  secondary: 'bg-surface text-fg border-border-strong hover:bg-surface-2',
  danger: 'bg-surface text-danger border-border-strong hover:bg-danger-soft',
  ghost: 'bg-transparent text-muted border-transparent hover:bg-surface-2 hover:text-fg',
};

const SIZES: Record<Size, string> = {
  sm: 'h-7 px-2.5 text-[12px]',
  md: 'h-8 px-3 text-[13px]',
};

export function buttonClass(variant: Variant = 'secondary', size: Size = 'md'): string {
  return cx(
    'inline-flex items-center justify-center gap-1.5 rounded-md border font-medium whitespace-nowrap transition-colors',
    'disabled:cursor-not-allowed disabled:opacity-50',
    VARIANTS[variant],
    SIZES[size],
  );
}

export function Button({
  variant = 'secondary',
  size = 'md',
  className,
  type = 'button',
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: Size }) {
  return <button type={type} className={cx(buttonClass(variant, size), className)} {...rest} />;
}
