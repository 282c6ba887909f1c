// A tiny Prisma generator that writes Prisma's own DMMF (the parsed data model: models,
// fields, db names, native types, nullability, ids) to <output>/dmmf.json.
// test/integration/schema-drift.test.ts compares it with the migrated database, so the
// comparison uses exactly what Prisma understood from schema.prisma, not a re-parse.
// Speaks the generator JSON-RPC protocol: requests on stdin, one JSON reply per line
// on stderr (what `prisma generate` expects from a generator process).
import { createInterface } from 'node:readline';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function reply(id, result) {
  process.stderr.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
}
function fail(id, message) {
  process.stderr.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message, data: null } }) + '\n');
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method === 'getManifest') {
    reply(msg.id, { manifest: { prettyName: 'DMMF JSON (schema drift test)', defaultOutput: 'generated/dmmf', requiresEngines: [] } });
  } else if (msg.method === 'generate') {
    try {
      const out = msg.params.generator.output?.value;
      if (!out) throw new Error('the dmmf generator needs an output path');
      mkdirSync(out, { recursive: true });
      writeFileSync(path.join(out, 'dmmf.json'), JSON.stringify(msg.params.dmmf.datamodel, null, 1));
      reply(msg.id, null);
    } catch (e) {
      fail(msg.id, e instanceof Error ? e.message : String(e));
    }
  }
});
