// notFound() from a console page (an unknown task or dead letter): inside the shell, so the
// navigation stays.
import type { Metadata } from 'next';
import { NotFoundPanel } from '@/components/shell/not-found-panel';

export const metadata: Metadata = { title: 'Not found' };

export default function ConsoleNotFound() {
  return <NotFoundPanel what="task, dead letter or page" />;
}
