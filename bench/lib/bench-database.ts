/**
 * A bench's databases: each created empty on the PostgreSQL server at TEST_DATABASE_URL or
 * DATABASE_URL (an embedded server started for the run when neither is set), as the tests'
 * (core/testing/test-database.ts). `drop` removes one; `stopEmbeddedDatabase` stops that
 * embedded server once every database is dropped.
 */
export async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { createTestDatabase } = require('../../core/testing/test-database') as typeof import('../../core/testing/test-database');
  const database = await createTestDatabase();
  return {
    url: database.url,
    drop: () => database.drop().catch((error) => console.error('dropping the bench database failed:', error)),
  };
}

export async function stopEmbeddedDatabase(): Promise<void> {
  const { stopEmbedded } = require('../../core/testing/test-database') as typeof import('../../core/testing/test-database');
  await stopEmbedded?.().catch(() => {});
}
