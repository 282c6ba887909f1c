// What a client may send that ends up in Postgres: ONE string schema for every text input
// (REST bodies and query strings, tRPC inputs, the CLI's config files) and one check for
// every JSON value a client sends (execution payloads), so hostile input is refused at the
// schema with a 400 naming the field instead of failing in the database with a 500.
//
// Postgres cannot store two things JavaScript strings can hold:
//  - NUL (U+0000): text columns refuse it and jsonb refuses the \u0000 escape;
//  - an unpaired UTF-16 surrogate (e.g. "\ud800"): jsonb refuses the escape, and a text
//    column receives U+FFFD instead (the driver encodes UTF-8), so the value read back is
//    not the value written — an idempotency key looked up again no longer matches.
// A JSON value nested thousands of levels deep overflows the stack of every recursive
// walker after it (JSON.stringify in the driver, zod, superjson), so depth is checked here
// without recursion, and so is the serialized size (the per-execution payload limit).
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { TOO_LARGE } from './errors';

export const NUL_MESSAGE = 'must not contain a NUL character (\\u0000)';
export const SURROGATE_MESSAGE = 'must be valid Unicode text (it contains an unpaired surrogate such as \\ud800)';

/** An unpaired high or low surrogate. */
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` cannot be stored as text, or null when it can. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE_RE.test(s)) return SURROGATE_MESSAGE;
  return null;
}

/**
 * The string schema every input uses (chain .trim()/.min()/.max()/.regex() on it as on
 * z.string()). Refuses NUL and unpaired surrogates with a message the field path prefixes.
 */
export const inputText = z.string().superRefine((s, ctx) => {
  const problem = textProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});


/** Deepest nesting of objects/arrays accepted in a client's JSON value (a payload). */
export const MAX_JSON_DEPTH = 64;
/** Default per-execution payload limit (serialized JSON, UTF-8 bytes); SLUICE_MAX_PAYLOAD_BYTES overrides it. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

export interface JsonLimits {
  maxDepth?: number;
  /** Serialized size limit in UTF-8 bytes; absent = no size limit. */
  maxBytes?: number;
}

export interface JsonProblem {
  /** Where in the value (object keys and array indexes); [] = the value itself. */
  path: (string | number)[];
  message: string;
}

/** Bytes `s` takes as a JSON string literal: UTF-8 plus quotes and escapes. */
function jsonStringBytes(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x20) n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4; // a pair: 4 bytes in UTF-8 (unpaired ones are refused before size matters)
      i++;
    } else n += 3;
  }
  return n;
}

function describe(v: unknown): string {
  if (typeof v === 'bigint') return 'a BigInt';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  if (typeof v === 'number') return String(v);
  if (v === undefined) return 'undefined';
  return Object.prototype.toString.call(v).slice(8, -1);
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The first reason `value` is not a JSON value Postgres can store within the limits, or
 * null. Walks with an explicit stack (no recursion), so a value nested 100,000 deep is
 * refused at MAX_JSON_DEPTH instead of overflowing the stack; stops at the size limit.
 */
export function jsonProblem(value: unknown, limits: JsonLimits = {}): JsonProblem | null {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  // One frame per open object/array: its children (keys or indexes) and the next to visit.
  // Children are visited one at a time, so a million-element array costs no copying and
  // the walk stops at the first problem; the path is built only when one is found.
  interface Frame {
    container: unknown[] | Record<string, unknown>;
    keys: (string | number)[] | null; // null: an array (indexes 0…length-1)
    length: number;
    next: number;
  }
  const frames: Frame[] = [];
  const pathHere = (child?: string | number): (string | number)[] => {
    const p = frames.map((f) => (f.keys ? f.keys[f.next - 1]! : f.next - 1));
    return child === undefined ? p : [...p, child];
  };
  const tooBig = (): JsonProblem => ({
    path: [], // the size is the whole value's, so it is reported at the value itself
    message: `${TOO_LARGE} ${maxBytes} bytes of JSON (set by SLUICE_MAX_PAYLOAD_BYTES)`,
  });
  let bytes = 0;
  let v: unknown = value;
  for (;;) {
    // Visit v (the value itself, then each child in turn).
    if (v === null || typeof v === 'boolean') {
      bytes += v === false ? 5 : 4; // true, null: 4
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path: pathHere(), message: `must be a finite number (JSON has no ${v})` };
      bytes += String(v).length;
    } else if (typeof v === 'string') {
      const p = textProblem(v);
      if (p) return { path: pathHere(), message: p };
      bytes += jsonStringBytes(v);
    } else if (typeof v === 'object') {
      if (frames.length >= maxDepth) {
        return { path: pathHere(), message: `is nested too deeply: at most ${maxDepth} levels of objects and arrays` };
      }
      if (Array.isArray(v)) {
        bytes += 2 + Math.max(0, v.length - 1);
        frames.push({ container: v, keys: null, length: v.length, next: 0 });
      } else {
        if (!isPlainObject(v)) return { path: pathHere(), message: `must be JSON (got ${describe(v)})` };
        const rec = v as Record<string, unknown>;
        const keys = Object.keys(rec).filter((k) => rec[k] !== undefined); // JSON drops undefined
        for (const k of keys) {
          const kp = textProblem(k);
          if (kp) return { path: pathHere(), message: `has a key that ${kp}` };
          bytes += jsonStringBytes(k) + 1;
        }
        bytes += 2 + Math.max(0, keys.length - 1);
        frames.push({ container: rec, keys, length: keys.length, next: 0 });
      }
    } else {
      return { path: pathHere(), message: `must be JSON (got ${describe(v)})` };
    }
    if (bytes > maxBytes) return tooBig();
    // Next value: the next child of the innermost frame that has one left.
    let top = frames[frames.length - 1];
    while (top && top.next >= top.length) {
      frames.pop();
      top = frames[frames.length - 1];
    }
    if (!top) return null;
    const key = top.keys ? top.keys[top.next]! : top.next;
    top.next++;
    v = (top.container as Record<string | number, unknown>)[key];
  }
}

/** A JSON value from a client (e.g. an execution payload) checked by jsonProblem, problems reported at their path. */
export function jsonInput(limits: JsonLimits = {}) {
  return z.unknown().superRefine((v, ctx) => {
    const p = jsonProblem(v, limits);
    if (p) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
  });
}

/**
 * A record (an open map such as groups or overrides) whose keys must be storable text too.
 * The problem is reported at the map, not under the key: a path holding the NUL itself
 * would carry it into the message and onto the operator's terminal.
 */
export function inputRecord<K extends z.ZodType<string, string>, V extends z.ZodType>(key: K, value: V) {
  return z.record(key, value).superRefine((o, ctx) => {
    for (const k of Object.keys(o as object)) {
      const problem = textProblem(k);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: `has a key that ${problem}` });
        return;
      }
    }
  });
}
