// tRPC for server components: a per-request context (cookies read-only), a per-request
// QueryClient to prefetch into, the options proxy, and a direct caller.
import 'server-only';
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { appRouter, createCaller } from './root';
import { createContext, type CookieJar } from './context';
import { makeQueryClient } from './query-client';

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

export const getQueryClient = cache(makeQueryClient);

export const trpc = createTRPCOptionsProxy({ ctx: getContext, router: appRouter, queryClient: getQueryClient });

/** Calls procedures directly (no cache) — for pages that render data on the server. */
export async function serverCaller() {
  return createCaller(await getContext());
}

/** The signed-in user for this request, or null. */
export async function currentUser() {
  return (await getContext()).user;
}
