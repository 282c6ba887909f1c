// A JSON value as a collapsible tree (native <details>, no client code). Safe by
// construction: every key and value is React text, never HTML; long strings are cut,
// and the tree stops after MAX_NODES nodes or MAX_DEPTH levels, saying what it left out.
import type { ReactNode } from 'react';

const MAX_NODES = 2_000;
const MAX_DEPTH = 12;
const MAX_STRING = 2_000;
const OPEN_DEPTH = 2;

interface Budget {
  left: number;
}

function Scalar({ v }: { v: unknown }) {
  if (v === null) return <span className="text-subtle">null</span>;
  if (typeof v === 'string') {
    const cut = v.length > MAX_STRING;
    return (
      <span className="text-success break-all">
        {JSON.stringify(cut ? v.slice(0, MAX_STRING) : v)}
        {cut && <span className="text-subtle"> … {(v.length - MAX_STRING).toLocaleString('en-US')} more characters</span>}
      </span>
    );
  }
  if (typeof v === 'number' || typeof v === 'bigint') return <span className="text-accent">{String(v)}</span>;
  if (typeof v === 'boolean') return <span className="text-warning">{String(v)}</span>;
  return <span>{String(v)}</span>;
}

function Node({ name, v, depth, budget }: { name: ReactNode; v: unknown; depth: number; budget: Budget }): ReactNode {
  budget.left--;
  const label = name === null ? null : <span className="text-muted">{name}: </span>;
  if (v === null || typeof v !== 'object') {
    return (
      <div className="pl-4">
        {label}
        <Scalar v={v} />
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div className="pl-4">
        {label}
        {open}
        {close}
      </div>
    );
  }
  if (depth >= MAX_DEPTH) {
    return (
      <div className="pl-4">
        {label}
        <span className="text-subtle">
          {open} … {entries.length} {Array.isArray(v) ? 'items' : 'keys'} deeper than {MAX_DEPTH} levels {close}
        </span>
      </div>
    );
  }
  const shown: ReactNode[] = [];
  let i = 0;
  for (; i < entries.length && budget.left > 0; i++) {
    const [k, x] = entries[i]!;
    shown.push(<Node key={k} name={Array.isArray(v) ? k : JSON.stringify(k)} v={x} depth={depth + 1} budget={budget} />);
  }
  return (
    <details open={depth < OPEN_DEPTH} className="pl-4">
      <summary className="cursor-pointer select-none">
        {label}
        {open}
        <span className="text-subtle"> {entries.length} {Array.isArray(v) ? 'items' : 'keys'}</span>
      </summary>
      {shown}
      {i < entries.length && <div className="pl-4 text-subtle">… {(entries.length - i).toLocaleString('en-US')} more not shown</div>}
      <div>{close}</div>
    </details>
  );
}

export function JsonTree({ value, label }: { value: unknown; label: string }) {
  return (
    <div aria-label={label} className="max-h-[32rem] overflow-auto bg-surface-2 p-3 font-mono text-[12px] leading-relaxed [&>*:first-child]:pl-0">
      <Node name={null} v={value} depth={0} budget={{ left: MAX_NODES }} />
    </div>
  );
}
