'use client';
// A secret shown once (generated password, new API token), with a copy button.
import { useState } from 'react';
import { Button } from './button';

export function OneTimeSecret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <div className="mt-2 flex flex-col gap-1">
      <span className="text-[12px] text-muted">{label} — shown only now; copy it somewhere safe.</span>
      <div className="flex items-center gap-2">
        <code aria-label={label} className="min-w-0 flex-1 truncate rounded border border-border bg-surface px-2 py-1 font-mono text-[12px] text-fg select-all">
          {value}
        </code>
        <Button size="sm" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
    </div>
  );
}
