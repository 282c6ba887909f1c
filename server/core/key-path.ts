// Reading concurrency-group keys, stream keys and routing keys out of an execution's
// payload. A key is always a string: strings are taken as they are, finite numbers and
// booleans are stringified (`42` and `"42"` are the same tenant), and anything else —
// objects, arrays, null, a missing field — is "no key".
// Pure: no I/O imports (server/core rule).
import { CoreError } from './errors';
import type { TaskDefinition } from './task-definition';

/** Longest key accepted for a group or stream (keys become index entries in Postgres). */
export const MAX_KEY_LENGTH = 200;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Follows a dot path (`customer.id`) into a JSON value. Only own properties of plain
 * objects are followed (so `constructor` or `__proto__` never reach the prototype), and
 * an all-digit segment indexes an array (`items.0.sku`).
 */
export function readKeyPath(payload: unknown, path: string): string | undefined {
  if (path === '') return undefined;
  let cur: unknown = payload;
  for (const seg of path.split('.')) {
    if (seg === '' || cur === null || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else {
      if (!hasOwn(cur, seg)) return undefined;
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return keyToString(cur);
}

function keyToString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

function checkKeyLength(key: string, what: string, path: string): void {
  if (key.length > MAX_KEY_LENGTH) {
    throw new CoreError('BAD_REQUEST', `${what} key is ${key.length} characters long; at most ${MAX_KEY_LENGTH} are allowed`, {
      fieldErrors: [{ path, message: `at most ${MAX_KEY_LENGTH} characters` }],
    });
  }
}

/**
 * The (group name → key) pairs an execution carries. Explicit keys (producer metadata)
 * win over the payload; a group with a `keyPath` reads the payload; a group for which
 * no key is found is left out, so it does not constrain the execution (DESIGN.md).
 * An empty string read from the payload counts as no key (an absent tenant must not
 * become a shared "" tenant); an explicit key must be a non-empty string.
 * Field-error paths are `groups.<group>` (the enqueue input's field).
 */
export function resolveGroupKeys(
  task: Pick<TaskDefinition, 'name' | 'groups'>,
  payload: unknown,
  explicit?: Record<string, string>,
): Record<string, string> {
  const declared = new Set(task.groups.map((g) => g.name));
  if (explicit !== undefined) {
    if (explicit === null || typeof explicit !== 'object' || Array.isArray(explicit)) {
      throw CoreError.badRequest('group keys must be an object of group name → key', [
        { path: 'groupKeys', message: 'must be an object of group name → key' },
      ]);
    }
    for (const [group, key] of Object.entries(explicit)) {
      if (!declared.has(group)) {
        const known = [...declared].map((g) => `"${g}"`).join(', ') || 'none';
        throw CoreError.badRequest(`task "${task.name}" has no group "${group}" (declared: ${known})`, [
          { path: `groups.${group}`, message: `unknown group "${group}"` },
        ]);
      }
      if (typeof key !== 'string' || key === '') {
        throw CoreError.badRequest(`the key for group "${group}" must be a non-empty string`, [
          { path: `groups.${group}`, message: 'must be a non-empty string' },
        ]);
      }
    }
  }
  const out: Record<string, string> = {};
  for (const g of task.groups) {
    const key =
      explicit !== undefined && hasOwn(explicit, g.name)
        ? explicit[g.name]
        : g.keyPath !== undefined
          ? readKeyPath(payload, g.keyPath)
          : undefined;
    if (key === undefined || key === '') continue;
    checkKeyLength(key, `group "${g.name}"`, `groups.${g.name}`);
    out[g.name] = key;
  }
  return out;
}

/**
 * The stream key an execution carries, or undefined (unordered). Explicit wins over the
 * task's `stream.keyPath`. Passing a stream key to a task that declares no `stream` is an
 * error rather than silently ignored, since ordering would not be what the caller expects.
 */
export function resolveStreamKey(
  task: Pick<TaskDefinition, 'name' | 'stream'>,
  payload: unknown,
  explicit?: string,
): string | undefined {
  if (explicit !== undefined) {
    if (!task.stream) {
      throw CoreError.badRequest(`task "${task.name}" is not ordered by stream; declare "stream" in its definition first`, [
        { path: 'streamKey', message: 'this task declares no stream' },
      ]);
    }
    if (typeof explicit !== 'string' || explicit === '') {
      throw CoreError.badRequest('the stream key must be a non-empty string', [
        { path: 'streamKey', message: 'must be a non-empty string' },
      ]);
    }
    checkKeyLength(explicit, 'stream', 'streamKey');
    return explicit;
  }
  const path = task.stream?.keyPath;
  if (path === undefined) return undefined;
  const key = readKeyPath(payload, path);
  if (key === undefined || key === '') return undefined;
  checkKeyLength(key, 'stream', 'streamKey');
  return key;
}

/**
 * The key hash routing hashes: explicit wins, else `routing.keyPath` from the payload.
 * Undefined when there is none (pickPartition turns that into a clear error for `hash`).
 */
export function resolveRoutingKey(
  task: Pick<TaskDefinition, 'routing'>,
  payload: unknown,
  explicit?: string,
): string | undefined {
  if (explicit !== undefined && explicit !== '') return explicit;
  const path = task.routing.keyPath;
  if (path === undefined) return undefined;
  return readKeyPath(payload, path);
}
