// The browser's QueryClient: one per tab (trpc-provider.tsx). It reads what server
// components prefetched and dehydrated (server/api/rsc.tsx: superjson-serialized, pending
// queries included), so it deserializes with superjson; a fresh-enough staleTime keeps it
// from refetching what the page just brought.
import { QueryClient } from '@tanstack/react-query';
import superjson from 'superjson';

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, refetchOnWindowFocus: false },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
