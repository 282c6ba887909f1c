// Where to send the browser after sign-in (/login?next=…). Pure.
//
// Only a path on this site. "Starts with / but not //" is not enough: browsers read a
// backslash as a slash and drop tabs and newlines inside URLs, so "/\evil.example" and
// "/<TAB>/evil.example" both leave the site. The value is parsed the way a browser parses
// it (WHATWG URL, against a placeholder origin) and kept only if it stays on that origin;
// what is returned is the parsed path, query and fragment, so the browser is handed exactly
// what was checked.

const PLACEHOLDER = 'http://sluice.invalid';
const MAX_LENGTH = 2000;

export function safeNextPath(raw: unknown, fallback = '/'): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_LENGTH || !raw.startsWith('/')) return fallback;
  // Control characters (tab, newline, NUL…) and backslashes have no business in a path we
  // hand back; refusing them outright is simpler than reasoning about each parser.
  if ([...raw].some((ch) => ch === '\\' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return fallback;
  let url: URL;
  try {
    url = new URL(raw, PLACEHOLDER);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER) return fallback;
  const out = `${url.pathname}${url.search}${url.hash}`;
  // A path that normalizes to "//host" would be protocol-relative in a Location header.
  return out.startsWith('//') ? fallback : out;
}
