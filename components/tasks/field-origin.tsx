'use client';
// Fleet defaults in the task editor: under an inheritable field, its source — the fleet
// default or the built-in one it inherits, or "this task" with the default it overrides
// and a button to hand the field back to the default.
import { Badge } from '@/components/ui/badge';

function shown(v: unknown): string {
  // Key-wait lines are none until set (built-in).
  if (v === null) return 'none';
  if (v && typeof v === 'object' && 'warning' in v && 'critical' in v) {
    const p = v as { warning: number; critical: number };
    return `${p.warning} / ${p.critical}`;
  }
  return String(v);
}

export function FieldOriginNote({
  path,
  inherited,
  source,
  inheritedValue,
  onUseDefault,
}: {
  /** The schema path (an inheritable field, or a task alert policy field). */
  path: string;
  inherited: boolean;
  source: 'built-in' | 'default';
  inheritedValue: unknown;
  onUseDefault: (() => void) | undefined;
}) {
  const from = source === 'default' ? 'fleet default' : 'built-in default';
  return (
    <p className="flex flex-wrap items-center gap-1.5 text-[12px] text-subtle" data-testid={`origin-${path}`}>
      {inherited ? (
        <>
          <Badge tone="accent">{from}</Badge>
          <span>inherited</span>
        </>
      ) : (
        <>
          <Badge>task</Badge>
          <span>
            overrides the {from} {shown(inheritedValue)}
          </span>
          {onUseDefault && (
            <button type="button" className="text-accent hover:underline" onClick={onUseDefault} aria-label={`Use the default for ${path}`}>
              Use default
            </button>
          )}
        </>
      )}
    </p>
  );
}
