'use client';
// A number field that keeps what the operator types: the form value is the parsed
// number, or NaN while the text is empty or not a number (the schema then reports it
// inline). `scale` shows a fraction as a percentage (0.1 ↔ 10).
import { useEffect, useState, type InputHTMLAttributes } from 'react';
import { Input } from '@/components/ui/input';

function display(value: number, scale: number): string {
  if (!Number.isFinite(value)) return '';
  return String(+(value * scale).toFixed(6));
}

export function NumberInput({
  value,
  onValue,
  scale = 1,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type'> & {
  value: number;
  onValue: (v: number) => void;
  scale?: number;
}) {
  const [text, setText] = useState(() => display(value, scale));
  // Follow outside changes (discard, reload) without fighting the operator's typing.
  useEffect(() => {
    setText((t) => {
      const parsed = t.trim() === '' ? NaN : Number(t) / scale;
      return Object.is(parsed, value) || (Number.isNaN(parsed) && Number.isNaN(value)) ? t : display(value, scale);
    });
  }, [value, scale]);
  return (
    <Input
      {...rest}
      inputMode="decimal"
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        const t = e.target.value.trim();
        const n = t === '' ? NaN : Number(t);
        onValue(Number.isFinite(n) ? +(n / scale).toPrecision(12) : NaN);
      }}
    />
  );
}
