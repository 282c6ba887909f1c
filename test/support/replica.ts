// A primary and a streaming replica of the test's own, from Debian's PostgreSQL 15 server
// binaries (/usr/lib/postgresql/15/bin): initdb a primary on a free 127.0.0.1 port,
// pg_basebackup -R from it into a second data directory, start that as a hot standby on
// another port. As root both run as the `postgres` user (Postgres refuses root). stop()
// stops both (fast) and removes their folders.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';

export const PG15_BIN = '/usr/lib/postgresql/15/bin';
export const PG15_AVAILABLE = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'].every((b) => existsSync(path.join(PG15_BIN, b)));

export interface PrimaryWithReplica {
  /** postgres://postgres@127.0.0.1:PORT/postgres of each server. */
  primaryUrl: string;
  replicaUrl: string;
  /** Until the replica has replayed everything the primary had written when called. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stop(): Promise<void>;
}


function asPostgresUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

async function run(bin: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  const ids = asPostgresUser();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(path.join(PG15_BIN, bin), args, { ...ids, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

export async function startPrimaryWithReplica(): Promise<PrimaryWithReplica> {
  if (!PG15_AVAILABLE) throw new Error(`PostgreSQL 15 server binaries not found in ${PG15_BIN} (apt-get install postgresql-15)`);
  const root = mkdtempSync(path.join(os.tmpdir(), 'sluice-replica-'));
  chmodSync(root, 0o755);
  const ids = asPostgresUser();
  if ('uid' in ids) chownSync(root, ids.uid, ids.gid);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const [pPort, rPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const stopAll = async () => {
    for (const dir of started.reverse()) await run('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
    // synchronous_commit stays on: an asynchronous commit is not in pg_current_wal_lsn()
    // until the WAL writer runs (≤ 200 ms), so waitForReplay could return before it.
    writeFileSync(
      path.join(primaryDir, 'postgresql.auto.conf'),
      ['wal_level = replica', 'max_wal_senders = 4', 'fsync = off', 'full_page_writes = off', `unix_socket_directories = '${root}'`, ''].join('\n'),
    );
    if ('uid' in ids) chownSync(path.join(primaryDir, 'postgresql.auto.conf'), ids.uid, ids.gid);
    await run('pg_ctl', ['-D', primaryDir, '-o', `-p ${pPort} -c listen_addresses=127.0.0.1`, '-l', path.join(root, 'primary.log'), '-w', 'start']);
    started.push(primaryDir);
    await run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast']);
    await run('pg_ctl', ['-D', replicaDir, '-o', `-p ${rPort} -c listen_addresses=127.0.0.1 -c hot_standby=on`, '-l', path.join(root, 'replica.log'), '-w', 'start']);
    started.push(replicaDir);
  } catch (e) {
    await stopAll();
    throw e;
  }
  const primaryUrl = `postgres://postgres@127.0.0.1:${pPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${rPort}/postgres`;
  const inRecovery = await query<{ r: boolean }>(replicaUrl, 'SELECT pg_is_in_recovery() AS r');
  if (!inRecovery[0]?.r) {
    await stopAll();
    throw new Error('the replica came up but is not in recovery');
  }
  return {
    primaryUrl,
    replicaUrl,
    async waitForReplay(timeoutMs = 30_000) {
      const [{ lsn }] = (await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
      const t0 = Date.now();
      for (;;) {
        const [r] = await query<{ caught: boolean }>(replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught', [lsn]);
        if (r?.caught) return;
        if (Date.now() - t0 > timeoutMs) throw new Error(`replica did not replay to ${lsn} in ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    async pauseReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_resume()');
    },
    stop: stopAll,
  };
}
