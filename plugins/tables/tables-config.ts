import type { ConfigValues } from '../../core';

/** The tables plugin's config slice (convict); README's tables settings table lists each. */
export const tablesConfig = {
  searchLanguage: {
    doc: 'Text search configuration of new tables (a PostgreSQL one: english, german, french, simple, ...)',
    format: String,
    default: 'english',
    env: 'TABLES_SEARCH_LANGUAGE',
  },
  crawlMaxPages: { doc: 'Most pages one website import crawls', format: 'nat', default: 50, env: 'TABLES_CRAWL_MAX_PAGES' },
  crawlMaxDepth: { doc: 'Most links a website import follows from its start page', format: 'nat', default: 2, env: 'TABLES_CRAWL_MAX_DEPTH' },
  crawlPageTimeoutMs: { doc: 'How long a website import waits for one page', format: 'nat', default: 10000, env: 'TABLES_CRAWL_PAGE_TIMEOUT_MS' },
  embeddingsUrl: {
    doc: 'Base URL of an OpenAI-compatible embeddings API (`<url>/embeddings`); with pgvector in the database, search adds vector similarity. Empty: off',
    format: String,
    default: '',
    env: 'TABLES_EMBEDDINGS_URL',
  },
  embeddingsModel: { doc: 'Embeddings model name', format: String, default: '', env: 'TABLES_EMBEDDINGS_MODEL' },
  embeddingsApiKey: { doc: 'Bearer token of the embeddings API', format: String, default: '', env: 'TABLES_EMBEDDINGS_API_KEY', sensitive: true },
};

/** The slice as validated at boot. */
export type TablesSettings = ConfigValues<typeof tablesConfig>;
