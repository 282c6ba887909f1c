// The list/detail read load of bench:executions in a process of its own, where the control
// plane serves these reads in production: beside the coordinators, not on their event
// loop. argv[2] is JSON {url, readers, thinkMs, shapes: [filter, order][], ids}; each
// reader reads a list page (cycling the shapes) and a detail (cycling the ids), then
// pauses thinkMs. Prints "ready" once connected, runs until its stdin closes, then prints
// one JSON line {list, detail, reads, ms} (latencies in ms) and exits.
import { createPool } from '../../server/db/pool';
import { executionDetail, listExecutionPage, type ExecutionListInput } from '../../server/presenters/execution';

const cfg = JSON.parse(process.argv[2]!) as {
  url: string;
  readers: number;
  thinkMs: number;
  shapes: [ExecutionListInput['filter'], ('newest' | 'oldest')?][];
  ids: number[];
};
const pool = createPool(cfg.url, cfg.readers);
await pool.query('SELECT 1');
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
process.stdout.write('ready\n');
const list: number[] = [];
const detail: number[] = [];
let reads = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: cfg.readers }, async (_, r) => {
    for (let i = r; !stop; i++) {
      const [filter, order] = cfg.shapes[i % cfg.shapes.length]!;
      let s = performance.now();
      await listExecutionPage(pool, { filter, order: order ?? 'newest', limit: 50 });
      list.push(performance.now() - s);
      s = performance.now();
      await executionDetail(pool, { id: cfg.ids[i % cfg.ids.length]! }, { includePayload: true });
      detail.push(performance.now() - s);
      reads += 2;
      await new Promise((res) => setTimeout(res, cfg.thinkMs));
    }
  }),
);
process.stdout.write(JSON.stringify({ list, detail, reads, ms: performance.now() - t0 }) + '\n');
await pool.end();
