// Runs `prisma generate` offline. Prisma 7 wants a schema-engine binary path even
// though generate never executes it; any existing file satisfies the check, and the
// real engine cannot be downloaded here. Migrations are applied by node-pg-migrate
// (see prisma/migrations), never by `prisma migrate`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const schema = path.join(root, 'prisma', 'schema.prisma');
if (!existsSync(schema)) {
  console.log('prisma-generate: no prisma/schema.prisma yet, skipping');
  process.exit(0);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const bin = path.join(root, 'node_modules', 'prisma', 'build', 'index.js');
const r = spawnSync(process.execPath, [bin, 'generate', '--schema', schema], { stdio: 'inherit', env, cwd: root });
process.exit(r.status ?? 1);
