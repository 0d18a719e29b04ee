import { createEgress, type Egress } from '../../../../core/egress';
import { createEmbeddingsClient, EmbeddingsError } from '../../../../plugins/tables/search/embeddings/embeddings-client';
import { captureLogger, egressConfig, startPeer, type Peer } from '../../../core/egress/peer-server';

let egress: Egress;
let peer: Peer;
let answer: { status: number; body: unknown };

beforeAll(async () => {
  egress = createEgress(egressConfig({ egressMaxRetries: 0 }), captureLogger().logger);
  peer = await startPeer((_request, res) => {
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });
});
afterAll(async () => {
  await egress?.close();
  await peer?.close();
});
beforeEach(() => peer.requests.splice(0));

const settings = (overrides: Partial<{ embeddingsUrl: string; embeddingsModel: string; embeddingsApiKey: string }> = {}) => ({
  embeddingsUrl: `${peer.url}/v1/`,
  embeddingsModel: 'text-embedding-test',
  embeddingsApiKey: 'sk-test',
  ...overrides,
});

describe('the embeddings client (OpenAI-compatible /embeddings, through egress)', () => {
  it('is off without a URL', () => {
    expect(createEmbeddingsClient(egress, settings({ embeddingsUrl: '' }))).toBeNull();
  });

  it('posts {model, input} with the bearer key and returns the vectors in input order', async () => {
    answer = {
      status: 200,
      body: { object: 'list', data: [{ index: 1, embedding: [0, 1] }, { index: 0, embedding: [1, 0.5] }], model: 'text-embedding-test' },
    };
    const client = createEmbeddingsClient(egress, settings())!;
    expect(client.model).toBe('text-embedding-test');
    expect(await client.embed(['first', 'second'])).toEqual([
      [1, 0.5],
      [0, 1],
    ]);
    const [request] = peer.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/embeddings');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(JSON.parse(request.body)).toEqual({ model: 'text-embedding-test', input: ['first', 'second'] });
  });

  it('sends no authorization header without a key, and nothing at all for no texts', async () => {
    answer = { status: 200, body: { data: [{ embedding: [0.25] }] } };
    const client = createEmbeddingsClient(egress, settings({ embeddingsApiKey: '' }))!;
    expect(await client.embed([])).toEqual([]);
    expect(peer.requests).toHaveLength(0);
    expect(await client.embed(['only'])).toEqual([[0.25]]);
    expect(peer.requests[0].headers.authorization).toBeUndefined();
  });

  it('fails with EmbeddingsError on an error status or an answer of the wrong shape', async () => {
    const client = createEmbeddingsClient(egress, settings())!;
    const cases: Array<[{ status: number; body: unknown }, RegExp]> = [
      [{ status: 401, body: { error: { message: 'bad key' } } }, /answered 401: .*bad key/],
      [{ status: 200, body: 'not json' }, /not JSON/],
      [{ status: 200, body: { data: [{ embedding: [1] }] } }, /1 vectors for 2 inputs/],
      [{ status: 200, body: { data: [{ embedding: [1] }, { embedding: ['x'] }] } }, /not a list of numbers/],
      [{ status: 200, body: { data: [{ embedding: [1] }, { embedding: [1, 2] }] } }, /different dimensions/],
      [{ status: 200, body: { data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] } }, /repeated indexes/],
    ];
    for (const [reply, message] of cases) {
      answer = reply;
      const error = await client.embed(['a', 'b']).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EmbeddingsError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
