import { startPeer, type Peer } from '../../../core/egress/peer-server';

/**
 * Words that mean the same thing share a dimension. None of a concept's words shares
 * a word stem or enough letters with another for full-text or trigram search to take
 * one for the other: a record found by a synonym was found by its vector.
 */
const CONCEPTS: readonly (readonly string[])[] = [
  ['kettle', 'teapot'],
  ['invoice', 'bill'],
  ['sofa', 'couch'],
  ['doctor', 'physician'],
  ['automobile', 'vehicle'],
];
const CONCEPT_OF = new Map(CONCEPTS.flatMap((words, dimension) => words.map((word) => [word, dimension] as const)));
/** The last dimension: the words of no concept, each a little (so a record's other words weaken its match), plus a floor, so no vector is zero. */
const OTHER = CONCEPTS.length;

/**
 * A deterministic embedding that encodes meaning by concept: one dimension per concept
 * (how often the text names it) and one for everything else.
 */
export function conceptVector(text: string): number[] {
  const vector = new Array<number>(CONCEPTS.length + 1).fill(0);
  vector[OTHER] = 0.01;
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const dimension = CONCEPT_OF.get(word);
    if (dimension === undefined) vector[OTHER] += 0.1;
    else vector[dimension] += 1;
  }
  return vector;
}

export interface ConceptEmbeddings {
  /** Base URL, as `tables.embeddingsUrl` takes it. */
  url: string;
  /** Every `input` text asked for, in order (documents and queries alike). */
  inputs: string[];
  /** Inputs answered with 503 so far (see refuse). */
  refused: string[];
  /**
   * Answers 503 to any request with an input holding `word` until allowed again: the
   * embed job fails and the bus retries it, so a document keeps its old embedding meanwhile.
   */
  refuse(word: string): void;
  allowAll(): void;
  /**
   * Keeps any request with an input holding `word` waiting (the input is recorded at
   * once) until the returned function is called: an embeddings API slow to answer.
   */
  hold(word: string): () => void;
  close(): Promise<void>;
}

/** A fake OpenAI-compatible embeddings API (`POST <url>/embeddings {model, input}`) answering conceptVector. */
export async function startConceptEmbeddings(model: string): Promise<ConceptEmbeddings> {
  const inputs: string[] = [];
  const refused: string[] = [];
  const refusing = new Set<string>();
  const holding = new Map<string, Promise<void>>();
  const peer: Peer = await startPeer(async (request, res) => {
    const body = JSON.parse(request.body) as { model?: unknown; input?: unknown };
    const texts = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
    if (request.method !== 'POST' || request.path !== '/embeddings' || body.model !== model) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `unexpected ${request.method} ${request.path} for model ${String(body.model)}` } }));
      return;
    }
    inputs.push(...texts);
    for (const [word, released] of holding) if (texts.some((text) => text.toLowerCase().includes(word))) await released;
    if (texts.some((text) => [...refusing].some((word) => text.toLowerCase().includes(word)))) {
      refused.push(...texts);
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'refused by the test' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', model, data: texts.map((text, index) => ({ object: 'embedding', index, embedding: conceptVector(text) })) }));
  });
  return {
    url: peer.url,
    inputs,
    refused,
    refuse: (word) => void refusing.add(word.toLowerCase()),
    allowAll: () => refusing.clear(),
    hold: (word) => {
      let release!: () => void;
      const key = word.toLowerCase();
      holding.set(key, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        holding.delete(key);
        release();
      };
    },
    close: () => peer.close(),
  };
}
