// One Postgres for the whole integration run: DATABASE_URL's server when given, else
// an embedded one in a temp folder. Creates a migrated template database named for
// this run; each test file clones it (test/integration/db.ts), so files never share
// state and every run starts fresh.
import type { TestProject } from 'vitest/node';
import { startTestPostgres, type TestPostgres } from '../support/test-postgres';

let pg: TestPostgres | undefined;

export default async function setup(project: TestProject) {
  pg = await startTestPostgres('it');
  project.provide('pgAdminUrl', pg.adminUrl);
  project.provide('pgTemplateDb', pg.templateDb);
  return async () => {
    await pg?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplateDb: string;
  }
}
