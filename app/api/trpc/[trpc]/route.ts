// The tRPC HTTP endpoint (batched queries and mutations from the browser). Size, origin
// and batch checks come first: server/api/trpc-http.ts.
import { handleTrpcRequest } from '@/server/api/trpc-http';

export const dynamic = 'force-dynamic';

export { handleTrpcRequest as GET, handleTrpcRequest as POST };
