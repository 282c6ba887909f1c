#!/usr/bin/env node
// `npm test`: typecheck, lint, unit, integration (real Postgres), measured (timing
// comparisons of real coordinators, run alone), e2e (Playwright in
// Chromium against the production build). Integration and e2e each create fresh
// databases for this run on DATABASE_URL's server, or on an embedded Postgres when it
// is unset, and drop them afterwards. Prints one closing line: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const only = process.argv.slice(2); // e.g. `npm test -- unit integration`
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-test-'));
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
let passed = 0;
let failed = 0;
const failedSteps = [];

function step(name, cmd, args, countFrom) {
  if (only.length && !only.includes(name)) return;
  console.log(`\n━━ ${name} ━━ ${[path.basename(cmd), ...args].join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  const ok = r.status === 0;
  const counts = countFrom ? countFrom() : { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  // A runner that died before writing its report still counts as a failure.
  if (!ok && counts.failed === 0) counts.failed = 1;
  passed += counts.passed;
  failed += counts.failed;
  if (!ok) failedSteps.push(name);
  console.log(`━━ ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s; ${counts.passed} passed, ${counts.failed} failed)`);
}

function vitestCounts(file) {
  return () => {
    try {
      const j = JSON.parse(fs.readFileSync(file, 'utf8'));
      return { passed: j.numPassedTests ?? 0, failed: (j.numFailedTests ?? 0) + (j.numRuntimeErrorTestSuites ?? 0) };
    } catch {
      return { passed: 0, failed: 0 };
    }
  };
}

function playwrightCounts(file) {
  return () => {
    try {
      const j = JSON.parse(fs.readFileSync(file, 'utf8'));
      return { passed: j.stats?.expected ?? 0, failed: (j.stats?.unexpected ?? 0) + (j.stats?.flaky ?? 0) };
    } catch {
      return { passed: 0, failed: 0 };
    }
  };
}

step('typecheck', bin('tsc'), ['--noEmit']);
step('lint', bin('eslint'), ['.', '--max-warnings=0']);
const unitJson = path.join(out, 'unit.json');
step('unit', bin('vitest'), ['run', '--project', 'unit', '--reporter=default', '--reporter=json', `--outputFile.json=${unitJson}`], vitestCounts(unitJson));
const intJson = path.join(out, 'integration.json');
step('integration', bin('vitest'), ['run', '--project', 'integration', '--reporter=default', '--reporter=json', `--outputFile.json=${intJson}`], vitestCounts(intJson));
// timing comparisons of real coordinators, alone on the machine (vitest.config.ts 'measured')
const measuredJson = path.join(out, 'measured.json');
step('measured', bin('vitest'), ['run', '--project', 'measured', '--reporter=default', '--reporter=json', `--outputFile.json=${measuredJson}`], vitestCounts(measuredJson));
const e2eJson = path.join(out, 'e2e.json');
env.PLAYWRIGHT_JSON_OUTPUT_NAME = e2eJson;
step('e2e', bin('playwright'), ['test', '--reporter=list,json'], playwrightCounts(e2eJson));

fs.rmSync(out, { recursive: true, force: true });
console.log('');
if (failedSteps.length) console.log(`Failed steps: ${failedSteps.join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || failedSteps.length ? 1 : 0);
