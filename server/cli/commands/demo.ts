// `sluice demo produce`: the demo traffic `npm start` runs (SLUICE_DEMO=1). Runs until
// SIGINT/SIGTERM; `--seconds N` bounds it.
import type { Command } from 'commander';
import { getPool } from '../../db/pool';
import { runDemoProducer } from '../../../demo/producer';
import { CliError } from '../cli-error';
import { parseEnv } from '../../env';

export function register(program: Command): void {
  const demo = program.command('demo').description('Demo traffic for a local Sluice');
  demo
    .command('produce')
    .description('Enqueue realistic demo traffic (several tasks and tenants, failures, a periodic hot partition)')
    .option('--seconds <n>', 'stop after this many seconds', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new CliError(`--seconds must be a positive number, got "${v}"`);
      return n;
    })
    .action(async (opts: { seconds?: number }) => {
      if (!process.env.DATABASE_URL) throw new CliError('DATABASE_URL is not set');
      const { SLUICE_DEMO_EPISODE_START_MS: episodeStartMs } = parseEnv();
      const ac = new AbortController();
      process.once('SIGINT', () => ac.abort());
      process.once('SIGTERM', () => ac.abort());
      if (opts.seconds) setTimeout(() => ac.abort(), opts.seconds * 1000).unref();
      const pool = getPool();
      await runDemoProducer({ pool, signal: ac.signal, episodeStartMs, log: (m) => console.log(`[demo] ${m}`) });
      await pool.end();
    });
}
