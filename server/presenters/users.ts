// The Settings → Users table.
import type { PrismaClient } from '../db/prisma';
import type { Role } from '../core/roles';

export interface UserRow {
  id: string;
  email: string;
  role: Role;
  active: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
}

export async function listUsers(prisma: PrismaClient): Promise<UserRow[]> {
  const rows = await prisma.user.findMany({
    select: { id: true, email: true, role: true, active: true, createdAt: true, lastLoginAt: true },
    orderBy: [{ active: 'desc' }, { email: 'asc' }],
  });
  return rows.map((r) => ({ ...r, role: r.role as Role }));
}
