import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { TokensPanel } from '@/components/tokens/tokens-panel';

export const metadata: Metadata = { title: 'API tokens' };

export default async function TokensPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  await getQueryClient().prefetchQuery(trpc.tokens.list.queryOptions());
  return (
    <HydrateClient>
      <TokensPanel canEdit={user.role === 'admin'} />
    </HydrateClient>
  );
}
