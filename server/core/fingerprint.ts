// Error fingerprints: group dead letters and failures by "the same error", so that
// `Order 1234 not found` and `Order 98 not found` are one row in the DLQ browser.
//
// fingerprint = stableHashHex64(name + "\n" + normalised message + "\n" + top frame)
//   - name: err.name, "Error" when absent.
//   - message: normaliseErrorMessage (variable parts → placeholders, see below).
//   - top frame: the first stack frame outside node_modules and the runtime's internals
//     (node:…, internal/…, native), as "function file", with line/column and directories
//     dropped: a redeploy that shifts lines or a host with another install directory
//     keeps the fingerprint; a different function or file changes it.
// Pure: no I/O imports (server/core rule).
import { stableHashHex64 } from './stable-hash';

/** Messages longer than this are cut before normalising (huge payload dumps). */
export const MAX_MESSAGE_CHARS = 2000;

// Order matters: whole tokens (URLs, emails, UUIDs, timestamps) go before the digit rules.
const RULES: [RegExp, string | ((m: string, ...g: string[]) => string)][] = [
  // URL: keep scheme://host/path, drop query and fragment; ids in the path are handled below.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"'`<>]+)[?#][^\s"'`<>]*/gi, (_m, base: string) => `${base}?<query>`],
  [/\b[\w.%+-]+@[\w-]+(?:\.[\w-]+)+\b/g, '<email>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  // Quoted strings: "…", '…' (not an apostrophe inside a word: don't, it's), `…`.
  [/"(?:[^"\\\n]|\\.)*"/g, '"<str>"'],
  [/(^|[^\w])'(?:[^'\\\n]|\\.)*'(?!\w)/g, (_m, pre: string) => `${pre}'<str>'`],
  [/`[^`\n]*`/g, '`<str>`'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Bare hex ids (object ids, hashes, trace ids): 8+ hex digits with at least one digit.
  [/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\d+(?:\.\d+)*/g, '<n>'],
];

/** Replaces the variable parts of an error message with placeholders and collapses whitespace. */
export function normaliseErrorMessage(msg: string): string {
  let s = String(msg).slice(0, MAX_MESSAGE_CHARS);
  for (const [re, rep] of RULES) {
    s = typeof rep === 'string' ? s.replace(re, rep) : s.replace(re, rep as (m: string, ...g: string[]) => string);
  }
  return s.replace(/\s+/g, ' ').trim();
}

const INTERNAL_FRAME = /node_modules|(?:^|[(\s@])node:|(?:^|[(\s/])internal\/|^native$|<anonymous>|^index \d+$/;

/** Parses one V8 (`at fn (file:1:2)`) or SpiderMonkey/JSC (`fn@file:1:2`) frame. */
function parseFrame(line: string): { fn: string; location: string } | undefined {
  const t = line.trim();
  let m = /^at (?:async )?(?:new )?(.*?) \((.*)\)$/.exec(t);
  if (m) return { fn: m[1]!, location: m[2]! };
  m = /^at (?:async )?(.*)$/.exec(t);
  if (m) return { fn: '', location: m[1]! };
  // name@location:line:col — the location must carry line:col and no spaces, so a message
  // line such as "Error: no user bob@example.com" is not mistaken for a frame.
  m = /^([^\s@]*)@(\S+:\d+:\d+)$/.exec(t);
  if (m) return { fn: m[1]!, location: m[2]! };
  return undefined;
}

/** "fn file.ts" for the first application frame of a stack, or "" when there is none. */
export function topApplicationFrame(stack: string | undefined): string {
  if (!stack) return '';
  for (const line of stack.split('\n')) {
    const f = parseFrame(line);
    if (!f || INTERNAL_FRAME.test(f.location)) continue;
    const file = f.location
      .replace(/:\d+(?::\d+)?$/, '') // line:column
      .replace(/[?#].*$/, '') // bundler cache-busters
      .replace(/^.*[\\/]/, ''); // directories
    if (!file) continue;
    return `${f.fn} ${file}`.trim();
  }
  return '';
}

export interface ErrorLike {
  name?: string;
  message: string;
  stack?: string;
}

export function errorFingerprint(err: ErrorLike): string {
  const name = err.name && err.name.trim() ? err.name.trim() : 'Error';
  return stableHashHex64(`${name}\n${normaliseErrorMessage(err.message ?? '')}\n${topApplicationFrame(err.stack)}`);
}
