'use client';
// Replay / purge one dead letter from its detail page (the same dialogs, a one-id scope).
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { ReplayDialog } from './replay-dialog';
import { PurgeDialog } from './purge-dialog';

export function DeadLetterActions({ id, replayed }: { id: number; replayed: boolean }) {
  const router = useRouter();
  const [open, setOpen] = useState<'replay' | 'purge' | null>(null);
  return (
    <>
      <Button variant="primary" disabled={replayed} title={replayed ? 'Already replayed' : undefined} onClick={() => setOpen('replay')}>
        Replay
      </Button>
      <Button variant="danger" onClick={() => setOpen('purge')}>
        Purge
      </Button>
      {open === 'replay' && <ReplayDialog scope={{ ids: [id] }} count={1} onClose={() => setOpen(null)} onDone={() => router.refresh()} />}
      {open === 'purge' && <PurgeDialog scope={{ ids: [id] }} count={1} onClose={() => setOpen(null)} onDone={() => router.push('/dead-letters')} />}
    </>
  );
}
