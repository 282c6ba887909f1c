// The Settings → Users table. Read with pg like every read and write of the users table
// (docs/architecture.md, "Data access").
import type { Db } from '../db/pool';
import type { Role } from '../core/roles';

export interface UserRow {
  id: string;
  email: string;
  role: Role;
  active: boolean;
  createdAt: Date;
  lastLoginAt: Date | null;
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  const r = await db.query<UserRow>(
    `SELECT id, email, role, active, created_at AS "createdAt", last_login_at AS "lastLoginAt"
       FROM users ORDER BY active DESC, email ASC`,
  );
  return r.rows;
}
