// The Prisma client, being retired: every table is read and written with pg
// (server/db/pool.ts; docs/architecture.md, "Data access"), and schema.prisma stays as
// the schema's description (drift test, generated types). Only the alerts presenter still
// reads through this client; new code does not. It runs over the same pg pool
// (getPool), through @prisma/adapter-pg, so one process keeps one pool.
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { getPool } from './pool';

export type { PrismaClient };

const g = globalThis as unknown as { __sluicePrisma?: PrismaClient };

/** A Prisma client over a given pool (tests pass their own). */
export function createPrisma(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/** The process-wide client over getPool(); survives Next's dev hot reloads. */
export function getPrisma(): PrismaClient {
  g.__sluicePrisma ??= createPrisma(getPool());
  return g.__sluicePrisma;
}
