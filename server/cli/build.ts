// Builds the Next.js app when the production build is missing or stale. "Stale" means
// the content hash of every build input differs from the stamp written after the last
// successful build, so `npm start` builds once and then reuses the build while sources
// are unchanged.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const INPUT_DIRS = ['app', 'components', 'server', 'public'];
const INPUT_FILES = ['next.config.js', 'instrumentation.ts', 'postcss.config.mjs', 'tsconfig.json', 'package-lock.json', 'prisma/schema.prisma', 'proxy.ts', 'middleware.ts'];
const SKIP = /(^|\/)(node_modules|generated|\.next[^/]*)(\/|$)|\.test\.tsx?$/;
/** next.config.js builds into NEXT_DIST_DIR when set (parallel builds in one checkout). */
export const DIST_DIR = path.join(ROOT, process.env.NEXT_DIST_DIR || '.next');
const STAMP = path.join(DIST_DIR, 'sluice-build-stamp');

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    const rel = path.relative(ROOT, p);
    if (SKIP.test(rel)) continue;
    if (entry.isDirectory()) walk(p, out);
    else if (entry.isFile()) out.push(p);
  }
}

export function buildInputsHash(): string {
  const files: string[] = [];
  for (const d of INPUT_DIRS) walk(path.join(ROOT, d), files);
  for (const f of INPUT_FILES) if (fs.existsSync(path.join(ROOT, f))) files.push(path.join(ROOT, f));
  files.sort();
  const h = createHash('sha256');
  for (const f of files) {
    h.update(path.relative(ROOT, f));
    h.update('\0');
    h.update(fs.readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

export function buildIsFresh(): boolean {
  if (!fs.existsSync(path.join(DIST_DIR, 'BUILD_ID')) || !fs.existsSync(STAMP)) return false;
  return fs.readFileSync(STAMP, 'utf8').trim() === buildInputsHash();
}

/**
 * A lock file beside the dist dir: two processes (npm start and an e2e run, or two test
 * runs) must not run `next build` into one folder at once. The holder's pid is in the
 * file; a lock whose holder is gone is taken over.
 */
async function withBuildLock<T>(fn: () => Promise<T>, log: (m: string) => void): Promise<T> {
  const lock = `${DIST_DIR}.build-lock`;
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      let holder = 0;
      try {
        holder = Number(fs.readFileSync(lock, 'utf8').trim() || '0');
      } catch {
        continue; // released between our attempt and the read: try again
      }
      let alive = false;
      try {
        if (holder > 0) process.kill(holder, 0);
        alive = holder > 0;
      } catch {
        alive = false;
      }
      if (!alive) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (!announced) log(`waiting for another build (pid ${holder}) to finish…`);
      announced = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

export async function ensureBuild(opts: { log?: (m: string) => void; force?: boolean } = {}): Promise<'fresh' | 'built'> {
  const log = opts.log ?? ((m: string) => console.log(m));
  if (!opts.force && buildIsFresh()) return 'fresh';
  return withBuildLock(async () => {
    // Someone else may have built it while we waited.
    if (!opts.force && buildIsFresh()) return 'fresh';
    return build(log);
  }, log);
}

async function build(log: (m: string) => void): Promise<'built'> {
  const hash = buildInputsHash();
  log('Building the control plane (next build); this happens once per source change…');
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed with exit code ${code}`))));
  });
  fs.writeFileSync(STAMP, hash + '\n');
  log(`Build finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 'built';
}
