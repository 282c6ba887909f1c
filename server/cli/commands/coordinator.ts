// `sluice coordinator --handlers <module> [--name N] [--slots S] [--tasks a,b]
//  [--metrics-port P] [--heartbeat-ms …] [--stale-ms …] [--lease-grace-ms …] [--poll-ms …]`
// Runs one coordinator against DATABASE_URL until SIGTERM/SIGINT, then drains: stops
// claiming, lets in-flight handlers finish within the grace period, releases the rest.
// The handlers module's default export maps task name → async (payload, ctx) => ….
import type { Command } from 'commander';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import { CliError } from '../cli-error';
import { parseEnv } from '../../env';
import { cliDatabaseUrl } from '../cli-context';
import { startCoordinator } from '../../coordinator/main';
import type { HandlerMap } from '../../coordinator/handler-runner';

interface Opts {
  handlers: string;
  name?: string;
  slots: string;
  tasks?: string;
  metricsPort?: string;
  heartbeatMs?: string;
  staleMs?: string;
  leaseGraceMs?: string;
  pollMs?: string;
  configPollMs?: string;
  shutdownGraceMs?: string;
  maintenance: boolean;
}

function int(name: string, v: string, min: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new CliError(`--${name} must be a whole number ≥ ${min}, got "${v}"`);
  return Number(v);
}

export async function loadHandlers(modulePath: string): Promise<HandlerMap> {
  const abs = path.resolve(modulePath);
  if (!fs.existsSync(abs)) throw new CliError(`--handlers: no such file ${abs}`);
  let mod: { default?: unknown };
  try {
    mod = await import(pathToFileURL(abs).href);
  } catch (e) {
    throw new CliError(`--handlers: could not load ${abs}: ${(e as Error).message}`);
  }
  // tsx/CJS interop may nest the default export once more.
  let handlers = mod.default as unknown;
  if (handlers && typeof handlers === 'object' && 'default' in handlers && Object.keys(handlers).length === 1) {
    handlers = (handlers as { default: unknown }).default;
  }
  if (!handlers || typeof handlers !== 'object') {
    throw new CliError(`--handlers: ${abs} must default-export an object mapping task names to async functions`);
  }
  for (const [task, fn] of Object.entries(handlers)) {
    if (typeof fn !== 'function') throw new CliError(`--handlers: the handler for "${task}" is not a function`);
  }
  return handlers as HandlerMap;
}

export function register(program: Command): void {
  program
    .command('coordinator')
    .description('Run a coordinator: claim and run executions of the tasks the handlers module serves')
    .requiredOption('--handlers <module>', 'module whose default export maps task name → async (payload, ctx)')
    .option('--name <name>', 'member name shown in the control plane (default: host-pid)')
    .option('--slots <n>', 'executions this process runs at once', '10')
    .option('--tasks <list>', 'comma-separated subset of the handlers to serve')
    .option('--metrics-port <port>', 'serve Prometheus /metrics on 127.0.0.1:<port> (0 = any free port)')
    .option('--heartbeat-ms <ms>', 'heartbeat interval (env SLUICE_HEARTBEAT_MS)')
    .option('--stale-ms <ms>', 'a member silent this long is stale (env SLUICE_STALE_MS)')
    .option('--lease-grace-ms <ms>', 'lease = task timeout + this (env SLUICE_LEASE_GRACE_MS)')
    .option('--poll-ms <ms>', 'idle claim poll interval (env SLUICE_POLL_MS)')
    .option('--config-poll-ms <ms>', 'config poll fallback interval (env SLUICE_CONFIG_POLL_MS)')
    .option('--shutdown-grace-ms <ms>', 'time in-flight handlers get on SIGTERM (env SLUICE_SHUTDOWN_GRACE_MS)')
    .option('--no-maintenance', 'do not run maintenance services in this process')
    .action(async (o: Opts) => {
      const handlers = await loadHandlers(o.handlers);
      const tasks = o.tasks ? o.tasks.split(',').map((t) => t.trim()).filter(Boolean) : undefined;
      const timings: Record<string, unknown> = {};
      const map: [keyof Opts, string, string][] = [
        ['heartbeatMs', 'heartbeatMs', 'heartbeat-ms'],
        ['staleMs', 'staleMs', 'stale-ms'],
        ['leaseGraceMs', 'leaseGraceMs', 'lease-grace-ms'],
        ['pollMs', 'pollMs', 'poll-ms'],
        ['configPollMs', 'configPollMs', 'config-poll-ms'],
        ['shutdownGraceMs', 'shutdownGraceMs', 'shutdown-grace-ms'],
      ];
      for (const [k, t, flag] of map) if (o[k] !== undefined) timings[t] = int(flag, String(o[k]), 0);
      let coordinator;
      try {
        coordinator = await startCoordinator({
          databaseUrl: await cliDatabaseUrl(),
          databaseDirectUrl: parseEnv().DATABASE_DIRECT_URL,
          handlers,
          ...(o.name ? { name: o.name } : {}),
          slots: int('slots', o.slots, 1),
          ...(tasks ? { tasks } : {}),
          metricsPort: o.metricsPort !== undefined ? int('metrics-port', o.metricsPort, 0) : null,
          metricsToken: parseEnv().SLUICE_METRICS_TOKEN,
          timings,
          maintenance: o.maintenance,
        });
      } catch (e) {
        if (e instanceof CliError) throw e;
        throw new CliError((e as Error).message);
      }
      await new Promise<void>((resolve) => {
        const onSignal = (sig: string) => {
          console.log(`[coordinator ${coordinator.name}] ${sig}: draining`);
          void coordinator.stop().then(resolve, (e) => {
            console.error(e);
            resolve();
          });
        };
        process.once('SIGTERM', () => onSignal('SIGTERM'));
        process.once('SIGINT', () => onSignal('SIGINT'));
        // Stopped from inside: an operator asked it to drain (server/coordinator/drain-request.ts).
        void coordinator.stopped.then(resolve);
      });
      process.exit(0);
    });
}
