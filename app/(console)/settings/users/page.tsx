import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { UsersPanel } from '@/components/users/users-panel';

export const metadata: Metadata = { title: 'Users' };

export default async function UsersPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  await getQueryClient().prefetchQuery(trpc.users.list.queryOptions());
  return (
    <HydrateClient>
      <UsersPanel canEdit={user.role === 'admin'} currentUserId={user.id} />
    </HydrateClient>
  );
}
