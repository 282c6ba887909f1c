// The Prisma client for the control plane's ordinary reads (presenters). It runs over
// the same pg pool as the hot-path SQL (getPool), through @prisma/adapter-pg, so one
// process keeps one pool. Writes that must be audited go through pg transactions
// (withTransaction + recordAudit) so a change and its audit row share one transaction.
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
