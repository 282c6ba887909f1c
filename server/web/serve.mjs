// The control plane's HTTP server: Next.js behind a plain node:http server. `npm start`
// (server/cli/commands/start.ts) and the e2e setup run it instead of `next start`:
//   node server/web/serve.mjs --port 3000 --host 127.0.0.1 [--dev]
// What it adds is one request header, x-sluice-peer-address: the address the TCP
// connection came from, set on every request and overwriting anything a client sent under
// that name. `next start` passes a client's own X-Forwarded-For through untouched (it fills
// the header in only when absent), so the sign-in throttle's per-address key, and the
// address recorded with sessions and audit entries, were the client's to choose. With the
// peer address they are not (server/core/client-address.ts; SLUICE_TRUSTED_PROXIES names
// how many reverse proxies in front may be believed).
//
// It also refuses request bodies over SLUICE_MAX_BODY_BYTES (default 1 MB) before Next.js
// reads a byte: a declared Content-Length over the limit is answered 413 at once, and a
// body without one (chunked) is counted as it is read and cut off with 413 when it passes
// the limit. No route handler can read past it; they check the same limit themselves
// (server/api/request-body.ts) for wherever else they run.
// Plain JavaScript, so the web process needs no TypeScript loader of its own (the env
// schema is loaded through tsx, as next.config.js does).
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import next from 'next';

export const PEER_ADDRESS_HEADER = 'x-sluice-peer-address';

/** "::ffff:10.0.0.1" (an IPv4 client on a dual-stack socket) → "10.0.0.1". */
export function peerAddress(socket) {
  const a = socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** How long a refused upload may go on being read (and discarded) after the 413. */
const LINGER_MS = 10_000;

function write413(res, maxBytes) {
  const body = JSON.stringify({ error: `request body too large: the limit is ${maxBytes} bytes`, code: 'PAYLOAD_TOO_LARGE' });
  res.writeHead(413, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.write(body);
}

/**
 * Enforces the body limit on `req`: false when it has been answered 413 already (do not
 * hand it on). Otherwise true, and a body without a declared length is counted as whoever
 * handles the request reads it; past the limit the reader gets neither the rest nor an
 * end (so it never acts on a cut-off body), the client gets 413, and the request is
 * destroyed, which the reader sees as an aborted request.
 */
export function limitRequestBody(req, res, maxBytes) {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const n = Number(declared);
    if (Number.isFinite(n) && n <= maxBytes) return true; // node:http delivers no more than declared
    // Answer at once, then keep reading (and dropping) what the client is still sending for
    // a while, so it can read the answer instead of seeing the connection reset mid-upload.
    write413(res, maxBytes);
    const finish = () => {
      clearTimeout(timer);
      if (!res.writableEnded) res.end();
    };
    const timer = setTimeout(() => {
      finish();
      req.destroy();
    }, LINGER_MS);
    timer.unref?.();
    req.once('end', finish);
    req.once('error', finish);
    req.once('close', finish);
    req.resume();
    return false;
  }
  if (req.headers['transfer-encoding'] === undefined) return true; // no body
  let seen = 0;
  let refused = false;
  const emit = req.emit;
  req.emit = function (event, ...args) {
    if (refused && (event === 'data' || event === 'end')) return false;
    if (event === 'data') {
      seen += args[0].length;
      if (seen > maxBytes) {
        refused = true;
        if (res.headersSent) req.destroy();
        else {
          write413(res, maxBytes);
          res.end(() => req.destroy());
        }
        return false;
      }
    }
    return emit.call(this, event, ...args);
  };
  return true;
}

function parseArgs(argv) {
  const out = { port: 3000, host: '127.0.0.1', dev: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dev') out.dev = true;
    else if (a === '--port' || a === '--host') {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      if (a === '--port') {
        out.port = Number(v);
        if (!Number.isInteger(out.port) || out.port < 1 || out.port > 65535) throw new Error(`--port must be 1–65535, got "${v}"`);
      } else out.host = v;
    } else throw new Error(`unknown argument "${a}" (usage: serve.mjs --port N --host H [--dev])`);
  }
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { tsImport } = await import('tsx/esm/api');
  const { parseEnv } = await tsImport('../env.ts', import.meta.url);
  const { SLUICE_MAX_BODY_BYTES: maxBodyBytes, SLUICE_SECURE_COOKIES: secure } = parseEnv();
  const { HSTS_VALUE } = await tsImport('../core/security-headers.ts', import.meta.url);
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const app = next({ dev: opts.dev, dir, hostname: opts.host, port: opts.port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = http.createServer((req, res) => {
    req.headers[PEER_ADDRESS_HEADER] = peerAddress(req.socket);
    // Served over HTTPS (secure cookies): browsers are to use nothing else from now on.
    if (secure) res.setHeader('strict-transport-security', HSTS_VALUE);
    if (!limitRequestBody(req, res, maxBodyBytes)) return;
    handle(req, res).catch((err) => {
      console.error(`[web] ${req.method} ${req.url}: ${err?.stack ?? err}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal server error');
    });
  });
  if (opts.dev) server.on('upgrade', app.getUpgradeHandler()); // the dev server's live reload
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  console.log(`[web] ready on http://${opts.host}:${opts.port}${opts.dev ? ' (dev)' : ''}`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), 5000).unref();
    server.close(() => {
      Promise.resolve(app.close?.()).finally(() => process.exit(0));
    });
    server.closeIdleConnections?.();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`[web] ${err?.stack ?? err}`);
    process.exit(1);
  });
}
