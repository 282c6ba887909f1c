// tRPC for server components: a per-request context (cookies read-only), a per-request
// QueryClient to prefetch into, the options proxy, a direct caller, and HydrateClient,
// which hands what was prefetched to the browser's cache (components/trpc/query-client.ts
// is the browser's side: it hydrates with superjson what this side dehydrates).
import 'server-only';
import { cache, type ReactNode } from 'react';
import { defaultShouldDehydrateQuery, dehydrate, HydrationBoundary, QueryClient } from '@tanstack/react-query';
import superjson from 'superjson';
import { cookies, headers } from 'next/headers';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { appRouter, createCaller } from './root';
import { createContext, type CookieJar } from './context';
import { replicaUrl } from '../db/pool';

const getContext = cache(async () => {
  const jar = await cookies();
  const readOnly: CookieJar = {
    get: (name) => jar.get(name)?.value,
    set: () => {
      throw new Error('cookies cannot be set while rendering a server component');
    },
    delete: () => {
      throw new Error('cookies cannot be deleted while rendering a server component');
    },
  };
  return createContext({ headers: await headers(), cookies: readOnly });
});

/** This request's QueryClient: pages prefetch into it; superjson carries Dates across
 *  hydration, and pending queries are dehydrated too (streamed to the browser). */
export const getQueryClient = cache(
  () =>
    new QueryClient({
      defaultOptions: {
        queries: { staleTime: 30_000 },
        dehydrate: {
          serializeData: superjson.serialize,
          shouldDehydrateQuery: (q) => defaultShouldDehydrateQuery(q) || q.state.status === 'pending',
        },
      },
    }),
);

/** Hands what a server component prefetched into this request's QueryClient to the
 *  browser's cache, so client components render it without a round trip. */
export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

export const trpc = createTRPCOptionsProxy({ ctx: getContext, router: appRouter, queryClient: getQueryClient });

/** Calls procedures directly (no cache) — for pages that render data on the server. */
export async function serverCaller() {
  return createCaller(await getContext());
}

/** Whether the console reads lists and charts from a replica (DATABASE_REPLICA_URL). */
export function replicaConfigured(): boolean {
  return replicaUrl() !== null;
}

/** The signed-in user for this request, or null. */
export async function currentUser() {
  return (await getContext()).user;
}
