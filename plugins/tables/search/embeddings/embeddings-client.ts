import type { Egress } from '../../../../core';
import type { TablesSettings } from '../../tables-config';

/** A query's embedding is on a search's path: it gets a short deadline, and search goes on without it. */
export const QUERY_TIMEOUT_MS = 3_000;
/** Embeddings of a sync's batch of documents may take longer. */
export const BATCH_TIMEOUT_MS = 60_000;

export class EmbeddingsError extends Error {}

/** An OpenAI-compatible embeddings API (`POST <url>/embeddings {model, input}` -> `{data: [{embedding, index}]}`), through egress. */
export interface EmbeddingsClient {
  readonly model: string;
  /** One vector per text, in the texts' order; EmbeddingsError for an error status or an answer of the wrong shape. */
  embed(texts: readonly string[], options?: { timeoutMs?: number }): Promise<number[][]>;
}

interface EmbeddingsAnswer {
  data?: Array<{ embedding?: unknown; index?: unknown }>;
}

/** The configured client, or null when `embeddingsUrl` is empty (search stays lexical). */
export function createEmbeddingsClient(egress: Egress, settings: Pick<TablesSettings, 'embeddingsUrl' | 'embeddingsModel' | 'embeddingsApiKey'>): EmbeddingsClient | null {
  if (!settings.embeddingsUrl) return null;
  const url = `${settings.embeddingsUrl.replace(/\/+$/, '')}/embeddings`;
  const model = settings.embeddingsModel;
  return {
    model,
    async embed(texts, options = {}) {
      if (texts.length === 0) return [];
      const response = await egress.request(url, {
        method: 'POST',
        headers: settings.embeddingsApiKey ? { authorization: `Bearer ${settings.embeddingsApiKey}` } : {},
        body: { model, input: [...texts] },
        timeoutMs: options.timeoutMs ?? BATCH_TIMEOUT_MS,
      });
      if (response.status >= 400) throw new EmbeddingsError(`embeddings API answered ${response.status}: ${response.text().slice(0, 200)}`);
      let answer: EmbeddingsAnswer;
      try {
        answer = response.json<EmbeddingsAnswer>();
      } catch {
        throw new EmbeddingsError('embeddings API answered with something that is not JSON');
      }
      return vectorsOf(answer, texts.length);
    },
  };
}

/** The vectors in input order (items carry their `index`; without one, answer order), checked: as many as asked, numbers, one dimension. */
function vectorsOf(answer: EmbeddingsAnswer, expected: number): number[][] {
  const items = Array.isArray(answer?.data) ? answer.data : undefined;
  if (!items || items.length !== expected) throw new EmbeddingsError(`embeddings API answered ${items?.length ?? 'no'} vectors for ${expected} inputs`);
  const vectors: number[][] = new Array(expected);
  items.forEach((item, position) => {
    const index = typeof item.index === 'number' ? item.index : position;
    const vector = item.embedding;
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingsError('embeddings API answered a vector that is not a list of numbers');
    }
    if (index < 0 || index >= expected || vectors[index]) throw new EmbeddingsError('embeddings API answered vectors with bad or repeated indexes');
    vectors[index] = vector;
  });
  if (new Set(vectors.map((vector) => vector.length)).size > 1) throw new EmbeddingsError('embeddings API answered vectors of different dimensions');
  return vectors;
}
