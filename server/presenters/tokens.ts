// The Settings → API tokens table: never the hash, only the prefix that tells tokens apart.
import type { PrismaClient } from '../db/prisma';
import type { TokenRole } from '../core/roles';

export interface TokenRow {
  id: string;
  name: string;
  role: TokenRole;
  /** `slc_<prefix>_…`, how the token is recognised without its secret. */
  display: string;
  createdAt: Date;
  createdBy: string | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export async function listTokens(prisma: PrismaClient): Promise<TokenRow[]> {
  const rows = await prisma.apiToken.findMany({
    select: {
      id: true,
      name: true,
      role: true,
      prefix: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      creator: { select: { email: true } },
    },
    orderBy: [{ revokedAt: { sort: 'desc', nulls: 'first' } }, { createdAt: 'desc' }],
  });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    role: r.role as TokenRole,
    display: `slc_${r.prefix}_…`,
    createdAt: r.createdAt,
    createdBy: r.creator?.email ?? null,
    lastUsedAt: r.lastUsedAt,
    revokedAt: r.revokedAt,
  }));
}
