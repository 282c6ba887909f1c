// Hands what a server component prefetched into this request's QueryClient to the
// browser's cache, so client components render it without a round trip.
import { dehydrate, HydrationBoundary } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { getQueryClient } from '@/server/api/rsc';

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
