// What `sluice start` runs besides the control plane:
// - SLUICE_DEMO (default on): applies demo/config.yaml when the database has no config
//   yet, then SLUICE_COORDINATORS coordinators with demo/handlers.ts and the demo producer.
// - SLUICE_DEMO=0 with SLUICE_HANDLERS=<module>: SLUICE_COORDINATORS coordinators serving
//   that module, and no producer. With neither, only the control plane runs.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Env } from '../env';
import type { Supervisor } from './supervisor';
import { ROOT } from './build';
import { getPool } from '../db/pool';
import { SYSTEM_ACTOR } from '../db/audit';

export async function startExtras(ctx: { env: Env; databaseUrl: string; supervisor: Supervisor; log: (m: string) => void }): Promise<void> {
  const { env, supervisor, log } = ctx;
  const sluiceBin = path.join(ROOT, 'bin', 'sluice.js');
  const childEnv = { ...process.env, DATABASE_URL: ctx.databaseUrl };
  let handlers: string | undefined;

  if (env.SLUICE_DEMO) {
    handlers = path.join(ROOT, 'demo', 'handlers.ts');
    const { applyConfig, currentConfig } = await import('../services/config-versions');
    const pool = getPool();
    const current = await currentConfig(pool);
    if (current.version === null) {
      const demoConfig = YAML.parse(fs.readFileSync(path.join(ROOT, 'demo', 'config.yaml'), 'utf8'));
      const applied = await applyConfig(pool, SYSTEM_ACTOR, demoConfig, { message: 'Demo configuration (SLUICE_DEMO=1)' });
      log(`applied the demo config as version ${applied.version}`);
    }
  } else if (env.SLUICE_HANDLERS) {
    handlers = path.resolve(process.cwd(), env.SLUICE_HANDLERS);
    if (!fs.existsSync(handlers)) throw new Error(`SLUICE_HANDLERS: ${handlers} does not exist`);
  }

  if (handlers && env.SLUICE_COORDINATORS > 0) {
    for (let i = 1; i <= env.SLUICE_COORDINATORS; i++) {
      const name = `${env.SLUICE_DEMO ? 'demo' : 'local'}-${i}`;
      supervisor.start(name, process.execPath, [sluiceBin, 'coordinator', '--handlers', handlers, '--name', name], {
        cwd: ROOT,
        env: childEnv,
        onExit: (code) => log(`coordinator ${name} exited (code ${code})`),
      });
    }
    log(`started ${env.SLUICE_COORDINATORS} coordinator(s) with ${path.relative(ROOT, handlers)}`);
  }
  if (env.SLUICE_DEMO) {
    supervisor.start('demo-producer', process.execPath, [sluiceBin, 'demo', 'produce'], {
      cwd: ROOT,
      env: childEnv,
      onExit: (code) => log(`demo producer exited (code ${code})`),
    });
    log('demo traffic started (SLUICE_DEMO=0 turns it off)');
  }
}
