// API tokens for producers and coordinators: `slc_<8-char prefix>_<40-char secret>`.
// Only the SHA-256 of the whole token is stored; the prefix is kept in clear so people
// can tell tokens apart. The plaintext is returned once, at creation.
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { inputText } from '../core/input-text';
import { CoreError } from '../core/errors';
import { withTransaction, type Db } from '../db/pool';
import { recordAudit, type Actor } from '../db/audit';
import { sha256Hex } from './sessions';
import { tokenRoleSchema, type TokenRole } from '../core/roles';
import { parseInput } from '../core/validate-input';

export const createTokenInput = z.strictObject({
  name: inputText
    .trim()
    .min(1, 'give the token a name')
    .max(100, 'must be at most 100 characters')
    .regex(/^[\p{L}\p{N} ._:@/-]*$/u, 'may contain letters, digits, spaces and . _ : @ / -'),
  role: tokenRoleSchema,
});
export type CreateTokenInput = z.input<typeof createTokenInput>;

export const revokeTokenInput = z.strictObject({ id: z.uuid('must be a token id') });

export interface TokenRecord {
  id: string;
  name: string;
  role: TokenRole;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const TOKEN_PATTERN = /^slc_([a-z0-9]{8})_([A-Za-z0-9]{40})$/;
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[randomInt(alphabet.length)];
  return s;
}

/** A new token: 8-char prefix, 40-char secret (~238 bits). */
export function generateToken(): { token: string; prefix: string } {
  const prefix = randomString(LOWER, 8);
  return { token: `slc_${prefix}_${randomString(MIXED, 40)}`, prefix };
}

const TOKEN_COLUMNS = `id, name, role, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

function auditView(t: TokenRecord) {
  return { id: t.id, name: t.name, role: t.role, prefix: t.prefix, revokedAt: t.revokedAt };
}

export async function createToken(
  pool: Db,
  actor: Actor,
  input: CreateTokenInput,
): Promise<{ token: string; record: TokenRecord }> {
  const v = parseInput(createTokenInput, input);
  const { token, prefix } = generateToken();
  const record = await withTransaction(pool, async (c) => {
    const r = await c.query<TokenRecord>(
      `INSERT INTO api_tokens (name, role, prefix, token_hash, created_by)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${TOKEN_COLUMNS}`,
      [v.name, v.role, prefix, sha256Hex(token), actor.type === 'user' ? actor.id : null],
    );
    const rec = r.rows[0]!;
    await recordAudit(c, actor, { action: 'token.create', targetType: 'api_token', targetId: rec.id, after: auditView(rec) });
    return rec;
  });
  return { token, record };
}

export async function revokeToken(pool: Db, actor: Actor, input: z.input<typeof revokeTokenInput>): Promise<TokenRecord> {
  const { id } = parseInput(revokeTokenInput, input);
  return withTransaction(pool, async (c) => {
    const cur = await c.query<TokenRecord>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id = $1 FOR UPDATE`, [id]);
    const before = cur.rows[0];
    if (!before) throw CoreError.notFound('API token');
    if (before.revokedAt) throw new CoreError('CONFLICT', `The token "${before.name}" is already revoked.`);
    const r = await c.query<TokenRecord>(
      `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 RETURNING ${TOKEN_COLUMNS}`,
      [id],
    );
    const after = r.rows[0]!;
    await recordAudit(c, actor, {
      action: 'token.revoke',
      targetType: 'api_token',
      targetId: id,
      before: auditView(before),
      after: auditView(after),
    });
    return after;
  });
}

/**
 * The token behind an `Authorization` value (`Bearer slc_…` or the bare token), or null
 * when it is malformed, unknown or revoked. One statement: the lookup, and a touch of
 * last_used_at at most once a minute (so a busy producer does not write per request).
 */
export async function authenticateToken(
  db: Db,
  bearer: string | null | undefined,
): Promise<{ id: string; name: string; role: TokenRole } | null> {
  if (!bearer) return null;
  const token = bearer.replace(/^bearer\s+/i, '').trim();
  if (!TOKEN_PATTERN.test(token)) return null;
  const r = await db.query<{ id: string; name: string; role: TokenRole }>(
    `WITH t AS (
       SELECT id, name, role FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL
     ), touch AS (
       UPDATE api_tokens SET last_used_at = now()
        WHERE id = (SELECT id FROM t) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
     )
     SELECT id, name, role FROM t`,
    [sha256Hex(token)],
  );
  return r.rows[0] ?? null;
}

/** How a token appears in the audit log when it makes a change (e.g. a REST enqueue). */
export function tokenActor(t: { id: string; name: string }): Actor {
  return { type: 'token', id: t.id, label: `token ${t.name}` };
}

/** A token's id from its id, its 8-character prefix, or the full token; null if none. */
export async function resolveTokenRef(db: Db, ref: string): Promise<string | null> {
  const s = ref.trim();
  const m = TOKEN_PATTERN.exec(s);
  const r = await db.query<{ id: string }>(
    `SELECT id FROM api_tokens
      WHERE ($1::text IS NOT NULL AND token_hash = $1)
         OR ($2::text IS NOT NULL AND prefix = $2)
         OR ($3::uuid IS NOT NULL AND id = $3::uuid)
      LIMIT 2`,
    [m ? sha256Hex(s) : null, /^[a-z0-9]{8}$/.test(s) ? s : null, /^[0-9a-f-]{36}$/i.test(s) ? s : null],
  );
  if (r.rows.length > 1) throw new CoreError('CONFLICT', `"${ref}" matches more than one token; use its id.`);
  return r.rows[0]?.id ?? null;
}
