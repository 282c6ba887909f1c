// The Prisma client for the control plane's ordinary reads (presenters). It runs over
// the same pg pool as the hot-path SQL (getPool), through @prisma/adapter-pg, so one
// process keeps one pool. Writes that must be audited go through pg transactions
// (withTransaction + recordAudit) so a change and its audit row share one transaction.
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { getPool, getReadPool } from './pool';

export type { PrismaClient };

const g = globalThis as unknown as { __sluicePrisma?: PrismaClient; __sluiceReadPrisma?: PrismaClient };

/** A Prisma client over a given pool (tests pass their own). */
export function createPrisma(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/** The process-wide client over getPool(); survives Next's dev hot reloads. */
export function getPrisma(): PrismaClient {
  g.__sluicePrisma ??= createPrisma(getPool());
  return g.__sluicePrisma;
}

/** The client over getReadPool() (the replica when DATABASE_REPLICA_URL is set). */
export function getReadPrisma(): PrismaClient {
  if (getReadPool() === getPool()) return getPrisma();
  g.__sluiceReadPrisma ??= createPrisma(getReadPool());
  return g.__sluiceReadPrisma;
}
