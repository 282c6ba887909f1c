// Operator passwords: argon2id hashes (@node-rs/argon2 defaults: argon2id, 19 MiB,
// 2 passes), the password policy, and generated passwords for first run / CLI / resets.
import { hash, verify } from '@node-rs/argon2';
import { randomInt } from 'node:crypto';
import { inputText } from '../core/input-text';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export const passwordSchema = inputText
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** False (never a throw) for a malformed hash, so a corrupt row cannot 500 a sign-in. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/**
 * Spends the same argon2 work as a real check, for sign-ins with an unknown email, so
 * response time does not tell which emails have accounts.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hash('sluice-dummy-password-for-timing');
  await verifyPassword(await dummyHash, password);
  return false;
}

// No look-alikes (0/O, 1/l/I) so a password read off a terminal types back correctly.
const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** 20 characters from a 56-symbol alphabet: ~116 bits. */
export function generatePassword(length = 20): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}
