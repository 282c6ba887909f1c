// Operator accounts: the first admin, creating users, changing roles, (de)activating,
// resetting passwords. Each change runs in one transaction with its audit record; the
// audit before/after carries {id, email, role, active}, never the password hash.
// Invariant: at least one active admin always remains (the admin rows are locked while
// a change that could remove the last one is decided, so two admins demoting each other
// at once cannot both succeed).
import { z } from 'zod';
import { inputText } from '../core/input-text';
import { CoreError } from '../core/errors';
import { withTransaction, type Db } from '../db/pool';
import { recordAudit, SYSTEM_ACTOR, type Actor } from '../db/audit';
import type { Env } from '../env';
import { generatePassword, hashPassword, passwordSchema } from './passwords';
import { deleteSessionsOfUser } from './sessions';
import { roleSchema, type Role } from '../core/roles';
import { parseInput } from '../core/validate-input';

export const emailSchema = inputText.trim().max(320, 'is too long').pipe(z.email('must be an email address'));

export const createUserInput = z.strictObject({
  email: emailSchema,
  role: roleSchema,
  /** Omitted: a password is generated and returned once. */
  password: passwordSchema.optional(),
});
export type CreateUserInput = z.input<typeof createUserInput>;

export const updateUserInput = z
  .strictObject({
    id: z.uuid('must be a user id'),
    role: roleSchema.optional(),
    active: z.boolean().optional(),
  })
  .refine((v) => v.role !== undefined || v.active !== undefined, { message: 'nothing to change: give a role or active' });
export type UpdateUserInput = z.input<typeof updateUserInput>;

export const resetPasswordInput = z.strictObject({ id: z.uuid('must be a user id'), password: passwordSchema.optional() });

export interface UserRecord {
  id: string;
  email: string;
  role: Role;
  active: boolean;
}

const USER_COLUMNS = 'id, email, role, active';

function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';
}

async function insertUser(c: Db, actor: Actor, email: string, role: Role, password: string): Promise<UserRecord> {
  const exists = await c.query(`SELECT 1 FROM users WHERE lower(email) = lower($1)`, [email]);
  if (exists.rowCount) throw new CoreError('CONFLICT', `A user with email ${email} already exists.`, { fieldErrors: [{ path: 'email', message: 'is already taken' }] });
  let user: UserRecord;
  try {
    const r = await c.query<UserRecord>(
      `INSERT INTO users (email, password_hash, role) VALUES ($1, $2, $3) RETURNING ${USER_COLUMNS}`,
      [email, await hashPassword(password), role],
    );
    user = r.rows[0]!;
  } catch (e) {
    // A concurrent insert of the same email got there between the check and the insert.
    if (isUniqueViolation(e)) throw new CoreError('CONFLICT', `A user with email ${email} already exists.`, { fieldErrors: [{ path: 'email', message: 'is already taken' }] });
    throw e;
  }
  await recordAudit(c, actor, { action: 'user.create', targetType: 'user', targetId: user.id, after: user });
  return user;
}

export async function createUser(
  pool: Db,
  actor: Actor,
  input: CreateUserInput,
): Promise<{ user: UserRecord; generatedPassword?: string }> {
  const v = parseInput(createUserInput, input);
  const generatedPassword = v.password === undefined ? generatePassword() : undefined;
  const user = await withTransaction(pool, (c) => insertUser(c, actor, v.email, v.role, v.password ?? generatedPassword!));
  return generatedPassword ? { user, generatedPassword } : { user };
}

/**
 * First run: when there are no users at all, creates an admin from SLUICE_ADMIN_EMAIL and
 * SLUICE_ADMIN_PASSWORD, or with a generated password returned once for printing.
 * Safe when several processes start together (transaction-scoped advisory lock).
 */
export async function ensureFirstAdmin(
  pool: Db,
  env: Pick<Env, 'SLUICE_ADMIN_EMAIL' | 'SLUICE_ADMIN_PASSWORD'>,
): Promise<{ created: boolean; email: string; password?: string }> {
  return withTransaction(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('sluice.ensure_first_admin'))`);
    const any = await c.query(`SELECT 1 FROM users LIMIT 1`);
    if (any.rowCount) {
      const admin = await c.query<{ email: string }>(
        `SELECT email FROM users WHERE role = 'admin' AND active ORDER BY created_at LIMIT 1`,
      );
      return { created: false, email: admin.rows[0]?.email ?? env.SLUICE_ADMIN_EMAIL };
    }
    const email = parseInput(emailSchema, env.SLUICE_ADMIN_EMAIL);
    const given = env.SLUICE_ADMIN_PASSWORD;
    const password = given === undefined ? generatePassword() : parseInput(passwordSchema, given);
    await insertUser(c, SYSTEM_ACTOR, email, 'admin', password);
    return given === undefined ? { created: true, email, password } : { created: true, email };
  });
}

async function lockUser(c: Db, id: string): Promise<UserRecord> {
  // Lock every active admin too (same order: by id), so the last-admin check below sees
  // a stable count.
  await c.query(`SELECT id FROM users WHERE role = 'admin' AND active ORDER BY id FOR UPDATE`);
  const r = await c.query<UserRecord>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [id]);
  if (!r.rows[0]) throw CoreError.notFound('User');
  return r.rows[0];
}

export async function updateUser(pool: Db, actor: Actor, input: UpdateUserInput): Promise<UserRecord> {
  const v = parseInput(updateUserInput, input);
  return withTransaction(pool, async (c) => {
    const before = await lockUser(c, v.id);
    const role = v.role ?? before.role;
    const active = v.active ?? before.active;
    if (role === before.role && active === before.active) return before;

    const losesAdmin = before.role === 'admin' && before.active && (role !== 'admin' || !active);
    if (losesAdmin) {
      const admins = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND active`);
      if (admins.rows[0]!.n <= 1) {
        const self = actor.type === 'user' && actor.id === before.id;
        throw new CoreError(
          'PRECONDITION_FAILED',
          `${self ? 'You are' : `${before.email} is`} the last active admin; make another user an admin first.`,
        );
      }
    }
    const r = await c.query<UserRecord>(
      `UPDATE users SET role = $2, active = $3, updated_at = now() WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [v.id, role, active],
    );
    const after = r.rows[0]!;
    let sessionsEnded = 0;
    if (!active) sessionsEnded = await deleteSessionsOfUser(c, v.id);
    const action =
      before.active !== after.active ? (after.active ? 'user.activate' : 'user.deactivate') : 'user.change_role';
    await recordAudit(c, actor, {
      action: before.role !== after.role && before.active !== after.active ? 'user.update' : action,
      targetType: 'user',
      targetId: after.id,
      before,
      after,
      ...(sessionsEnded ? { meta: { sessionsEnded } } : {}),
    });
    return after;
  });
}

/** Sets a new password (generated when omitted) and signs the user out everywhere. */
export async function resetPassword(
  pool: Db,
  actor: Actor,
  input: z.input<typeof resetPasswordInput>,
): Promise<{ user: UserRecord; generatedPassword?: string }> {
  const v = parseInput(resetPasswordInput, input);
  const generatedPassword = v.password === undefined ? generatePassword() : undefined;
  const passwordHash = await hashPassword(v.password ?? generatedPassword!);
  const user = await withTransaction(pool, async (c) => {
    const r = await c.query<UserRecord>(
      `UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1 RETURNING ${USER_COLUMNS}`,
      [v.id, passwordHash],
    );
    if (!r.rows[0]) throw CoreError.notFound('User');
    const sessionsEnded = await deleteSessionsOfUser(c, v.id);
    await recordAudit(c, actor, {
      action: 'user.reset_password',
      targetType: 'user',
      targetId: v.id,
      meta: { generated: generatedPassword !== undefined, sessionsEnded },
    });
    return r.rows[0];
  });
  return generatedPassword ? { user, generatedPassword } : { user };
}
