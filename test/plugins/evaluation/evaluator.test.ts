import { startFakeLlmServer, startTestKernel, transactionsOpenLongerThan, type FakeLlmServer, type TestKernel, type TestTenant } from '../../../core/testing';
import {
  ISO,
  PLUGINS,
  answerCalls,
  callKind,
  closedSession,
  createAgent,
  delivered,
  eventually,
  evaluationOf,
  evaluationProbe,
  handledByEvaluator,
  modelAnswer,
  promptOf,
  putDefault,
  putOverride,
  requestsAbout,
  responseSchemaErrors,
  uniqueText,
} from './evaluation-test-kit';

const MAX_TRANSCRIPT = 4000;
let server: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  server = await startFakeLlmServer();
  kit = await startTestKernel({
    plugins: [...PLUGINS, evaluationProbe],
    config: { llmBaseUrl: server.url, llmModel: 'test-model', llmMaxRetries: 0, evaluation: { retryInitialMs: 50, maxTranscriptChars: MAX_TRANSCRIPT } },
  });
});
afterAll(async () => {
  await kit?.stop();
  await server?.close();
});
afterEach(() => {
  // Every scripted answer was used: a call too few would leave one for the next test.
  expect(server.remaining).toBe(0);
});

const SENTIMENT = 'D-sentiment: positive, neutral or negative';
const EMOTION = 'D-emotion: the dominant emotion';
const INTENT = 'D-intent: the customer intent';
const SUCCESS = 'D-success: did it work';
const NOT_EVALUATED = { success: false, message: 'Session has not been evaluated', data: [] };

/** A tenant whose default enables these text analyzers, with the test's descriptions. */
async function tenantWith(body: Record<string, any> = {}): Promise<TestTenant> {
  const tenant = await kit.createTenant();
  await putDefault(tenant.api, body);
  return tenant;
}

describe('per_analyzer mode (the spec’s)', () => {
  it('makes exactly one call per enabled analyzer plus one for the summary, each with its instruction and the transcript', async () => {
    const tenant = await tenantWith({
      sessionization: { summary_prompt: 'S-summary: what happened', report_language: 'es' },
      text: {
        sentiment_analyzer: { enabled: true, description: SENTIMENT },
        emotion_detection: { enabled: true, description: EMOTION },
        intent_labels: { enabled: true, description: INTENT },
        success_evaluation_prompt: { enabled: true, description: SUCCESS, prompt: 'P-success: a table was booked' },
      },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 5, {
      labels: { [SENTIMENT]: ' Positive ', [EMOTION]: 'joy', [INTENT]: 'book_table' },
      success: { success: true, reason: 'A table was booked.' },
      summary: 'El cliente reservó una mesa.',
      totalTokens: 20,
    });
    const { session, conversation, messages } = await closedSession(tenant.api, { agent, turns: [`Hello, a table for two please ${words}`, 'Booked for 8pm'] });

    const evaluation = await evaluationOf(tenant.api, session);
    const requests = requestsAbout(server, words);
    expect(requests).toHaveLength(5);
    expect(requests.map(callKind).sort()).toEqual(['analyzer', 'analyzer', 'analyzer', 'success', 'summary']);
    const transcript = `[${messages[0].created_at}] customer: Hello, a table for two please ${words}\n[${messages[1].created_at}] agent: Booked for 8pm`;
    for (const request of requests) {
      expect(promptOf(request)).toContain(transcript);
      expect(request.body.model).toBe('test-model');
    }
    for (const description of [SENTIMENT, EMOTION, INTENT]) {
      expect(requests.filter((request) => callKind(request) === 'analyzer' && promptOf(request).includes(description))).toHaveLength(1);
    }
    const success = requests.find((request) => callKind(request) === 'success')!;
    expect(promptOf(success)).toContain('P-success: a table was booked');
    expect(promptOf(success)).toContain(SUCCESS);
    const summary = requests.find((request) => callKind(request) === 'summary')!;
    expect(promptOf(summary)).toContain('S-summary: what happened');
    expect(promptOf(summary)).toContain('Spanish (es)');
    expect(summary.body.response_format).toBeUndefined();

    expect(evaluation).toEqual({
      uuid: expect.any(String),
      session_uuid: session,
      conversation_uuid: conversation,
      agent_uuid: agent,
      channel: 'chat',
      settings_source: 'default',
      block: 'text',
      mode: 'per_analyzer',
      status: 'completed',
      results: {
        sentiment_analyzer: { label: 'positive', raw: '{"label":" Positive "}' },
        emotion_detection: { label: 'joy', raw: '{"label":"joy"}' },
        intent_labels: { label: 'book_table', raw: '{"label":"book_table"}' },
        success_evaluation_prompt: { label: 'true', raw: JSON.stringify({ success: true, reason: 'A table was booked.' }) },
      },
      success: true,
      success_reason: 'A table was booked.',
      summary: 'El cliente reservó una mesa.',
      errors: [],
      llm_calls: 5,
      tokens: 100,
      runs: 1,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(responseSchemaErrors(kit, 'GET', '/api/v1/sessions/:uuid/evaluation', { data: evaluation })).toBeNull();

    // `session.evaluated` went out with the record.
    const event = await eventually(() => delivered.find((m) => m.topic === 'session.evaluated' && m.payload.session_uuid === session));
    expect(event.payload).toEqual({
      evaluation_uuid: evaluation.uuid,
      session_uuid: session,
      conversation_uuid: conversation,
      agent_uuid: agent,
      channel: 'chat',
      status: 'completed',
      success: true,
      summary: 'El cliente reservó una mesa.',
      labels: { sentiment_analyzer: 'positive', emotion_detection: 'joy', intent_labels: 'book_table', success_evaluation_prompt: 'true' },
    });
  });

  it('an empty success prompt makes no call: success is null with a reason; an empty summary prompt makes none either', async () => {
    const tenant = await tenantWith({
      sessionization: { summary_prompt: '' },
      text: { sentiment_analyzer: { enabled: true, description: SENTIMENT }, success_evaluation_prompt: { enabled: true, prompt: '   ' } },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'neutral' } });
    const { session } = await closedSession(tenant.api, { agent, turns: [`Hi ${words}`, 'Hello'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words).map(callKind)).toEqual(['analyzer']);
    expect(evaluation).toMatchObject({
      status: 'completed',
      results: {
        sentiment_analyzer: { label: 'neutral' },
        success_evaluation_prompt: { label: null, raw: null, error: expect.stringMatching(/^no prompt/) },
      },
      success: null,
      success_reason: expect.stringMatching(/prompt is empty/),
      summary: null,
      llm_calls: 1,
      tokens: 15,
    });
  });

  it('sends a long session’s beginning and end, within maxTranscriptChars', async () => {
    const tenant = await tenantWith({ sessionization: { summary_prompt: '' }, text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'neutral' } });
    const turns = [`FIRST ${words} ${'a'.repeat(1500)}`, `MIDDLE ${'b'.repeat(3000)}`, `LAST ${'c'.repeat(1500)}`];
    const { session } = await closedSession(tenant.api, { agent, turns });

    await evaluationOf(tenant.api, session);
    const [request] = requestsAbout(server, words);
    const transcript = /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(promptOf(request))![1];
    expect(transcript.length).toBeLessThanOrEqual(MAX_TRANSCRIPT);
    expect(transcript).toMatch(/^\[[^\]]+\] customer: FIRST /);
    expect(transcript).toMatch(/customer: LAST c+$/);
    expect(transcript).toMatch(/\[\.\.\. \d+ characters omitted \.\.\.\]/);
    expect(transcript).not.toContain('MIDDLE');
  });

  it('asks the model with no transaction open (the consumer’s prepare): none waits on the answers', async () => {
    const tenant = await tenantWith({ text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 2, (request) => ({ ...modelAnswer({ labels: { [SENTIMENT]: 'neutral' } })(request), delayMs: 1500 }));
    const { session } = await closedSession(tenant.api, { agent, turns: [`Just checking ${words}`, 'Sure.'] });
    await eventually(() => requestsAbout(server, words).length > 0);
    expect(await transactionsOpenLongerThan(kit, 500, { samples: 5 })).toEqual([]);
    expect(await evaluationOf(tenant.api, session)).toMatchObject({ session_uuid: session });
  });

  it('a session under the minimum message count is not evaluated: no call, no record', async () => {
    const tenant = await tenantWith({ text: { sentiment_analyzer: { enabled: true } } });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    const { session } = await closedSession(tenant.api, { agent, turns: [`Anyone there? ${words}`] });
    await handledByEvaluator(kit, session);
    expect(requestsAbout(server, words)).toEqual([]);
    await tenant.api.get(`/api/v1/sessions/${session}/evaluation`).expect(404, NOT_EVALUATED);
  });
});

describe('batched mode', () => {
  it('makes exactly one structured call answering every analyzer, the verdict and the summary', async () => {
    const tenant = await tenantWith({
      mode: 'batched',
      text: {
        sentiment_analyzer: { enabled: true, description: SENTIMENT },
        emotion_detection: { enabled: true, description: EMOTION },
        success_evaluation_prompt: { enabled: true, prompt: 'P-success: a table was booked' },
      },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'negative', [EMOTION]: 'anger' }, success: { success: false, reason: 'Nothing was booked.' }, summary: 'Batched.' });
    const { session } = await closedSession(tenant.api, { agent, turns: [`I am angry ${words}`, 'Sorry to hear that'] });

    const evaluation = await evaluationOf(tenant.api, session);
    const requests = requestsAbout(server, words);
    expect(requests.map(callKind)).toEqual(['batched']);
    const schema = requests[0].body.response_format.json_schema.schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['emotion_detection', 'sentiment_analyzer', 'success_evaluation_prompt', 'summary']);
    expect(promptOf(requests[0])).toContain(SENTIMENT);
    expect(promptOf(requests[0])).toContain('P-success: a table was booked');
    expect(evaluation).toMatchObject({
      mode: 'batched',
      status: 'completed',
      results: {
        sentiment_analyzer: { label: 'negative', raw: '{"label":"negative"}' },
        emotion_detection: { label: 'anger', raw: '{"label":"anger"}' },
        success_evaluation_prompt: { label: 'false' },
      },
      success: false,
      success_reason: 'Nothing was booked.',
      summary: 'Batched.',
      errors: [],
      llm_calls: 1,
      tokens: 15,
    });
  });

  it('keeps the members that conform when one does not: only that analyzer fails', async () => {
    const tenant = await tenantWith({
      mode: 'batched',
      sessionization: { summary_prompt: '' },
      text: { sentiment_analyzer: { enabled: true, description: SENTIMENT }, emotion_detection: { enabled: true, description: EMOTION } },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    server.reply({ json: { sentiment_analyzer: { label: 'positive' }, emotion_detection: { mood: 'joy' } } });
    const { session } = await closedSession(tenant.api, { agent, turns: [`Great ${words}`, 'Glad to hear'] });

    const evaluation = await evaluationOf(tenant.api, session);
    expect(requestsAbout(server, words)).toHaveLength(1);
    expect(evaluation).toMatchObject({
      status: 'failed',
      results: {
        sentiment_analyzer: { label: 'positive', raw: '{"label":"positive"}' },
        emotion_detection: { label: null, raw: expect.stringContaining('"mood"'), error: expect.stringContaining('emotion_detection') },
      },
      llm_calls: 1,
    });
  });
});

describe('whose settings run', () => {
  it('an agent’s override runs instead of the default; is_active=false on it stores nothing and calls nothing', async () => {
    const tenant = await tenantWith({ sessionization: { summary_prompt: '' }, text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    const inheriting = await createAgent(tenant.api, 'Inherits');
    const overridden = await createAgent(tenant.api, 'Overrides');
    const inactive = await createAgent(tenant.api, 'Inactive');
    await putOverride(tenant.api, overridden, { text: { sentiment_analyzer: { enabled: false }, emotion_detection: { enabled: true, description: EMOTION } } });
    await putOverride(tenant.api, inactive, { is_active: false });

    const words = uniqueText();
    answerCalls(server, 2, { labels: { [SENTIMENT]: 'positive', [EMOTION]: 'trust' } });
    const first = await closedSession(tenant.api, { agent: inheriting, turns: [`One ${words}`, 'Hi'] });
    const second = await closedSession(tenant.api, { agent: overridden, turns: [`Two ${words}`, 'Hi'] });
    const third = await closedSession(tenant.api, { agent: inactive, turns: [`Three ${words}`, 'Hi'] });

    expect(await evaluationOf(tenant.api, first.session)).toMatchObject({ settings_source: 'default', results: { sentiment_analyzer: { label: 'positive' } }, llm_calls: 1 });
    const fromOverride = await evaluationOf(tenant.api, second.session);
    expect(fromOverride).toMatchObject({ settings_source: 'agent', results: { emotion_detection: { label: 'trust' } }, llm_calls: 1 });
    expect(Object.keys(fromOverride.results)).toEqual(['emotion_detection']);

    await handledByEvaluator(kit, third.session);
    await tenant.api.get(`/api/v1/sessions/${third.session}/evaluation`).expect(404, NOT_EVALUATED);
    expect(requestsAbout(server, `Three ${words}`)).toEqual([]);
    expect(requestsAbout(server, words)).toHaveLength(2);
  });

  it('a chat session runs the text block, a call the voice block', async () => {
    const tenant = await tenantWith({
      sessionization: { summary_prompt: '' },
      text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } },
      voice: { emotion_detection: { enabled: true, description: EMOTION }, intent_labels: { enabled: true, description: INTENT } },
    });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 3, { labels: { [SENTIMENT]: 'neutral', [EMOTION]: 'fear', [INTENT]: 'report_outage' } });
    const chat = await closedSession(tenant.api, { agent, channel: 'chat', turns: [`Typing ${words}`, 'Hi'] });
    const call = await closedSession(tenant.api, { agent, channel: 'voice', turns: [`Calling ${words}`, 'Hello'] });

    const text = await evaluationOf(tenant.api, chat.session);
    expect(text).toMatchObject({ channel: 'chat', block: 'text', llm_calls: 1 });
    expect(Object.keys(text.results)).toEqual(['sentiment_analyzer']);
    const voice = await evaluationOf(tenant.api, call.session);
    expect(voice).toMatchObject({ channel: 'voice', block: 'voice', llm_calls: 2, results: { emotion_detection: { label: 'fear' }, intent_labels: { label: 'report_outage' } } });
    expect(Object.keys(voice.results).sort()).toEqual(['emotion_detection', 'intent_labels']);
    expect(requestsAbout(server, `Calling ${words}`).map((request) => promptOf(request).includes(SENTIMENT))).toEqual([false, false]);
  });
});

describe('POST /api/v1/sessions/{uuid}/evaluation/rerun', () => {
  it('re-evaluates with today’s settings and replaces the record: same uuid and created_at, runs 2', async () => {
    const tenant = await tenantWith({ sessionization: { summary_prompt: '' }, text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    const agent = await createAgent(tenant.api);
    const words = uniqueText();
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'negative' } });
    const { session } = await closedSession(tenant.api, { agent, turns: [`Meh ${words}`, 'Sorry'] });
    const first = await evaluationOf(tenant.api, session);
    expect(first).toMatchObject({ runs: 1, results: { sentiment_analyzer: { label: 'negative' } } });

    await putDefault(tenant.api, { mode: 'batched', sessionization: { summary_prompt: 'S-summary' }, text: { emotion_detection: { enabled: true, description: EMOTION } } });
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'positive', [EMOTION]: 'joy' }, summary: 'Rerun summary.' });
    const res = await tenant.api.post(`/api/v1/sessions/${session}/evaluation/rerun`).expect(202);
    expect(res.body).toEqual({ success: true, message: 'Evaluation queued', data: { session_uuid: session, queued: true } });

    const second = await eventually(async () => {
      const data = (await tenant.api.get(`/api/v1/sessions/${session}/evaluation`).expect(200)).body.data;
      return data.runs === 2 ? data : null;
    });
    expect(second).toMatchObject({
      uuid: first.uuid,
      created_at: first.created_at,
      mode: 'batched',
      results: { sentiment_analyzer: { label: 'positive' }, emotion_detection: { label: 'joy' } },
      summary: 'Rerun summary.',
      llm_calls: 1,
    });
    expect(second.updated_at > first.updated_at).toBe(true);
    const rows = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from evaluations where session_uuid = ?', [session]);
    expect(rows).toEqual([{ n: 1 }]);
    const events = await eventually(() => {
      const found = delivered.filter((m) => m.topic === 'session.evaluated' && m.payload.session_uuid === session);
      return found.length === 2 ? found : null;
    });
    expect(events.map((event) => event.payload.evaluation_uuid)).toEqual([first.uuid, first.uuid]);
  });

  it('answers 404 for an unknown session and 409 for an open one; a session never evaluated can be rerun', async () => {
    const tenant = await tenantWith({ text: { sentiment_analyzer: { enabled: false } } });
    const agent = await createAgent(tenant.api);
    await tenant.api.post('/api/v1/sessions/0190d5c2-0000-7000-8000-000000000000/evaluation/rerun').expect(404, { success: false, message: 'Session not found', data: [] });
    await tenant.api.get('/api/v1/sessions/0190d5c2-0000-7000-8000-000000000000/evaluation').expect(404, { success: false, message: 'Session not found', data: [] });
    const open = await closedSession(tenant.api, { agent, close: false });
    await tenant.api.post(`/api/v1/sessions/${open.session}/evaluation/rerun`).expect(409, { success: false, message: 'Session is still open', data: [] });
    await tenant.api.get(`/api/v1/sessions/${open.session}/evaluation`).expect(404, NOT_EVALUATED);

    // Inactive settings stored nothing; after they are turned on, a rerun evaluates the session.
    await putDefault(tenant.api, { is_active: false });
    const words = uniqueText();
    const closed = await closedSession(tenant.api, { agent, turns: [`Later ${words}`, 'Ok'] });
    await handledByEvaluator(kit, closed.session);
    await tenant.api.get(`/api/v1/sessions/${closed.session}/evaluation`).expect(404, NOT_EVALUATED);
    await putDefault(tenant.api, { is_active: true, sessionization: { summary_prompt: '' }, text: { sentiment_analyzer: { enabled: true, description: SENTIMENT } } });
    answerCalls(server, 1, { labels: { [SENTIMENT]: 'neutral' } });
    await tenant.api.post(`/api/v1/sessions/${closed.session}/evaluation/rerun`).expect(202);
    expect(await evaluationOf(tenant.api, closed.session)).toMatchObject({ runs: 1, results: { sentiment_analyzer: { label: 'neutral' } } });
  });
});
