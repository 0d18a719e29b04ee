import { startEmbedded } from './test-database';

/**
 * Jest global setup: without TEST_DATABASE_URL or DATABASE_URL, start one embedded
 * PostgreSQL for the whole run and hand its URL to the workers through the environment.
 * Partners point their jest config's globalSetup/globalTeardown here too.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL || process.env.DATABASE_URL) return;
  process.env.TEST_DATABASE_URL = await startEmbedded();
  (globalThis as any).__switchboardEmbeddedUrl = process.env.TEST_DATABASE_URL;
}
