// Times shown in UTC with a fixed format, so server and browser render the same text;
// the full ISO instant is in the tooltip.
function pad(n: number): string {
  return String(n).padStart(2, '0');
}

export function formatUtc(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export function Timestamp({ date, empty = '—' }: { date: Date | null | undefined; empty?: string }) {
  if (!date) return <span className="whitespace-nowrap text-subtle">{empty}</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()} className="font-mono text-[12px] whitespace-nowrap tabular-nums">
      {formatUtc(date)}
    </time>
  );
}
