// A PgBouncer of the test's own (Debian's pgbouncer; .ci/run installs it): transaction
// pooling on a free 127.0.0.1 port in front of the test Postgres, its ini and auth file in a
// temporary folder, stopped by stop(). Every database name is forwarded (`* =`), so a
// per-file test database is reached as the same name through the bouncer.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, chmodSync, rmSync, existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

export const PGBOUNCER_BIN = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? null;

export interface PgBouncer {
  /** `upstreamUrl` with host and port replaced by the bouncer's. */
  url: string;
  port: number;
  /** The bouncer's admin console (SHOW POOLS, SHOW STATS). */
  adminUrl: string;
  log(): string;
  stop(): Promise<void>;
}


export async function startPgBouncer(upstreamUrl: string, o: { poolSize?: number; maxClients?: number } = {}): Promise<PgBouncer> {
  if (!PGBOUNCER_BIN) throw new Error('pgbouncer is not installed (apt-get install -y pgbouncer; .ci/run does it)');
  const up = new URL(upstreamUrl);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = decodeURIComponent(up.username || 'postgres');
  const logfile = path.join(dir, 'pgbouncer.log');
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" "${decodeURIComponent(up.password)}"\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${up.hostname} port=${up.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${o.poolSize ?? 10}`,
      `max_client_conn = ${o.maxClients ?? 500}`,
      // node-pg sends `options` when a pool sets one (the coordinator's synchronous_commit);
      // PgBouncer 1.18 refuses unknown startup parameters unless told to ignore them.
      'ignore_startup_parameters = options,extra_float_digits',
      `logfile = ${logfile}`,
      'server_reset_query =',
      '',
    ].join('\n'),
  );
  for (const f of ['users.txt', 'pgbouncer.ini']) chmodSync(path.join(dir, f), 0o644);
  // PgBouncer will not run as root: as root it drops to the postgres user.
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', path.join(dir, 'pgbouncer.ini')] : [path.join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(PGBOUNCER_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => out + (existsSync(logfile) ? readFileSync(logfile, 'utf8') : '');
  // Ready when the port accepts connections.
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start:\n${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.end(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() - t0 > 10_000) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not listen on ${port} within 10 s:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = new URL(upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const admin = new URL(url);
  admin.pathname = '/pgbouncer';
  return {
    url: url.toString(),
    port,
    adminUrl: admin.toString(),
    log,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
