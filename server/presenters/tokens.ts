// The Settings → API tokens table: never the hash, only the prefix that tells tokens apart.
// Read with pg like every read and write of api_tokens (docs/architecture.md, "Data access").
import type { Db } from '../db/pool';
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

export async function listTokens(db: Db): Promise<TokenRow[]> {
  const r = await db.query<TokenRow>(
    `SELECT t.id, t.name, t.role, 'slc_' || t.prefix || '_…' AS display, t.created_at AS "createdAt",
            u.email AS "createdBy", t.last_used_at AS "lastUsedAt", t.revoked_at AS "revokedAt"
       FROM api_tokens t LEFT JOIN users u ON u.id = t.created_by
      ORDER BY t.revoked_at DESC NULLS FIRST, t.created_at DESC`,
  );
  return r.rows;
}
