// An execution's state as a badge, one tone per state (a state without a tone here reads
// as neutral).
import { Badge, type Tone } from '@/components/ui/badge';

const TONES: Record<string, Tone> = {
  queued: 'accent',
  scheduled: 'neutral',
  blocked: 'warning',
  running: 'accent',
  succeeded: 'success',
  dead: 'danger',
  canceled: 'neutral',
  spilled: 'warning',
};

export function ExecutionStateBadge({ state }: { state: string }) {
  return <Badge tone={TONES[state] ?? 'neutral'}>{state}</Badge>;
}
