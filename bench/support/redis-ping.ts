// Whether a Redis answers at a URL: one PING over a raw socket (RESP), no client library, so
// the peer benchmark and its test can ask before running BullMQ without installing anything.
import net from 'node:net';

/** True when a Redis answers PING at `url` (redis://host:port) within `timeoutMs`. */
export function redisAnswers(url: string, timeoutMs = 2000): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = net.connect({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) });
    let reply = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d: Buffer) => {
      reply += d.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    sock.on('error', () => done(false));
  });
}
