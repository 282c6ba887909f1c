// Child processes started by `sluice start` (the Next server, coordinators, demo
// producers), stopped together on Ctrl-C/SIGTERM: SIGTERM first, SIGKILL after a grace.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface Supervised {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

export class Supervisor {
  private children: Supervised[] = [];
  private stopping = false;

  start(name: string, cmd: string, args: string[], opts: SpawnOptions & { onExit?: (code: number | null) => void }): Supervised {
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
    const exited = new Promise<number | null>((resolve) => {
      child.on('exit', (code, signal) => {
        if (!this.stopping) opts.onExit?.(code ?? (signal ? 128 : null));
        resolve(code);
      });
      // A child that cannot be spawned (EACCES, ENOENT) emits 'error' and no 'exit'; unhandled,
      // the 'error' event would crash `sluice start` with a stack trace. Say which and stop.
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) return; // it did start: a failed kill(), not a failed spawn
        console.error(`[sluice] cannot start ${name} (${cmd}): ${e.code ?? e.message}`);
        if (!this.stopping) opts.onExit?.(127);
        resolve(127);
      });
    });
    const s = { name, child, exited };
    this.children.push(s);
    return s;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  async stopAll(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const live = this.children.filter((c) => c.child.exitCode === null && c.child.signalCode === null);
    for (const c of live) c.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const c of live) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    }, graceMs);
    await Promise.all(live.map((c) => c.exited));
    clearTimeout(timer);
  }
}
