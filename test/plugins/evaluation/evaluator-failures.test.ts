import { startFakeLlmServer, startTestKernel, type FakeLlmRequest, type FakeLlmServer, type TestKernel, type TestTenant } from '../../../core/testing';
import {
  EVALUATOR,
  PLUGINS,
  answerCalls,
  callKind,
  closedSession,
  createAgent,
  delivered,
  eventually,
  evaluationOf,
  evaluationProbe,
  modelAnswer,
  promptOf,
  putDefault,
  requestsAbout,
  uniqueText,
} from './evaluation-test-kit';

/**
 * How the evaluator fails: an unavailable model is retried through the bus (no retries
 * inside the llm service here, so each delivery is one request per call), and after
 * the last delivery the record is stored with the errors; answers that another try
 * would not fix are recorded at once.
 */
const MAX_ATTEMPTS = 3;
// Long enough for a loaded machine to answer the other tests’ calls in time.
const TIMEOUT_MS = 1000;

let server: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  server = await startFakeLlmServer();
  kit = await startTestKernel({
    plugins: [...PLUGINS, evaluationProbe],
    config: {
      llmBaseUrl: server.url,
      llmModel: 'test-model',
      llmMaxRetries: 0,
      llmTimeoutMs: TIMEOUT_MS,
      evaluation: { retryInitialMs: 50, maxAttempts: MAX_ATTEMPTS },
    },
  });
});
afterAll(async () => {
  await kit?.stop();
  await server?.close();
});
afterEach(() => {
  expect(server.remaining).toBe(0);
});

const SENTIMENT = 'D-sentiment: positive, neutral or negative';
const EMOTION = 'D-emotion: the dominant emotion';

async function tenantWith(body: Record<string, any>): Promise<TestTenant> {
  const tenant = await kit.createTenant();
  await putDefault(tenant.api, body);
  return tenant;
}

/** Retries the bus scheduled for the evaluator, as logged. */
const retriesLogged = (session: string) => {
  const closed = delivered.find((m) => m.topic === 'session.closed' && m.payload.session_uuid === session);
  return kit.logs.filter((line) => line.message === 'message handler failed; will retry' && line.consumer === EVALUATOR && line.message_id === closed?.id);
};

const answersFor = (sentiment: (request: FakeLlmRequest) => object) => (request: FakeLlmRequest) =>
  promptOf(request).includes(SENTIMENT) ? sentiment(request) : modelAnswer({ labels: { [EMOTION]: 'calm' }, summary: 'Kept.' })(request);

describe('an unavailable model', () => {
  it('a 500 is retried through the bus, and the next delivery’s answers are stored', async () => {
    const tenant = await tenantWith({ sessionization: { summary_prompt: '' }, text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    server.reply({ status: 500, error: 'overloaded' });
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'positive' } });
    const { session } = await closedSession(tenant.api, { agent, turns: [`Hello ${words}`, 'Hi'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words)).toHaveLength(2);
    expect(evaluation).toMatchObject({ status: 'completed', results: { sentiment_analyzer: { label: 'positive' } }, errors: [], llm_calls: 1, runs: 1 });
    expect(retriesLogged(session)).toHaveLength(1);
  });

  it('a 500 on every delivery: after the last, the record is stored as failed with the error, keeping the answers that came', async () => {
    const tenant = await tenantWith({
      sessionization: { summary_prompt: 'S-summary' },
      text: { sentiment_analyzer: { enabled: true, description: SENTIMENT }, emotion_detection: { enabled: true, description: EMOTION } },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 3 * MAX_ATTEMPTS, answersFor(() => ({ status: 500, error: 'down' })));
    const { session } = await closedSession(tenant.api, { agent, turns: [`Hello ${words}`, 'Hi'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words)).toHaveLength(3 * MAX_ATTEMPTS);
    expect(evaluation).toMatchObject({
      status: 'failed',
      results: {
        sentiment_analyzer: { label: null, raw: null, error: 'the model is unavailable: it answered HTTP 500 (1 attempt)' },
        emotion_detection: { label: 'calm' },
      },
      summary: 'Kept.',
      errors: [],
      llm_calls: 3,
      runs: 1,
    });
    // The model server's address is the operator's business, not the tenant's.
    expect(JSON.stringify(evaluation)).not.toContain('127.0.0.1');
    expect(retriesLogged(session)).toHaveLength(MAX_ATTEMPTS - 1);
    const event = await eventually(() => delivered.find((m) => m.topic === 'session.evaluated' && m.payload.session_uuid === session));
    expect(event.payload).toMatchObject({ status: 'failed', labels: { sentiment_analyzer: null, emotion_detection: 'calm' } });
  });

  it('a model that does not answer in time is retried, then recorded as failed', async () => {
    const tenant = await tenantWith({ sessionization: { summary_prompt: '' }, text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, MAX_ATTEMPTS, () => ({ json: { label: 'late' }, delayMs: TIMEOUT_MS * 3 }));
    const { session } = await closedSession(tenant.api, { agent, turns: [`Hello ${words}`, 'Hi'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words)).toHaveLength(MAX_ATTEMPTS);
    expect(evaluation).toMatchObject({
      status: 'failed',
      results: { sentiment_analyzer: { label: null, error: 'the model is unavailable: it did not answer in time (1 attempt)' } },
      tokens: 0,
    });
  });
});

describe('failures another try would not fix are recorded at once', () => {
  it('an answer that does not match the schema fails its analyzer only, with the answer kept as raw', async () => {
    const tenant = await tenantWith({
      sessionization: { summary_prompt: 'S-summary' },
      text: { sentiment_analyzer: { enabled: true, description: SENTIMENT }, emotion_detection: { enabled: true, description: EMOTION } },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 3, answersFor(() => ({ json: { sentiment: 'positive' } })));
    const { session } = await closedSession(tenant.api, { agent, turns: [`Hello ${words}`, 'Hi'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words)).toHaveLength(3);
    expect(evaluation).toMatchObject({
      status: 'failed',
      results: {
        sentiment_analyzer: { label: null, raw: '{"sentiment":"positive"}', error: expect.stringContaining('does not match the schema') },
        emotion_detection: { label: 'calm' },
      },
      summary: 'Kept.',
      llm_calls: 3,
      tokens: 30,
    });
    expect(retriesLogged(session)).toEqual([]);
  });

  it('a refused request (HTTP 400) and a failed summary are recorded without retrying', async () => {
    const tenant = await tenantWith({
      sessionization: { summary_prompt: 'S-summary' },
      text: { success_evaluation_prompt: { enabled: true, prompt: 'P-success' } },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 2, (request) => (callKind(request) === 'summary' ? { content: '  ' } : { status: 400, error: 'response_format is not supported' }));
    const { session } = await closedSession(tenant.api, { agent, turns: [`Hello ${words}`, 'Hi'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words)).toHaveLength(2);
    expect(evaluation).toMatchObject({
      status: 'failed',
      results: { success_evaluation_prompt: { label: null, error: 'the LLM server refused the request (HTTP 400): response_format is not supported' } },
      success: null,
      success_reason: expect.stringMatching(/^the success evaluation failed: /),
      summary: null,
      errors: [expect.stringMatching(/^summary: the model gave an empty answer/)],
      llm_calls: 2,
    });
    expect(retriesLogged(session)).toEqual([]);
  });
});
