import crypto from 'node:crypto';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as conversationFixtures } from '../../../plugins/conversations/testing';
import { fixtures as evaluationFixtures } from '../../../plugins/evaluation/testing';
import { PLUGINS, responseSchemaErrors } from './evaluation-test-kit';

/** The list, the analytics and the cross-tenant sweep, on a kernel without a model. */
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS });
});
afterAll(() => kit?.stop());

const uuid = () => crypto.randomUUID();

interface Seed {
  agent: string;
  channel: string;
  at: string;
  success: boolean | null;
  status?: 'completed' | 'failed';
  labels: Record<string, string | null>;
  calls: number;
  tokens: number;
}

/** Records written straight into the table, with the times and numbers the assertions need. */
async function seed(tenant: TestTenant, rows: Seed[]): Promise<string[]> {
  const connection = kit.kernel.orm.em.fork().getConnection();
  const uuids: string[] = [];
  for (const row of rows) {
    const id = uuid();
    uuids.push(id);
    const results = Object.fromEntries(
      Object.entries(row.labels).map(([name, label]) => [name, label === null ? { label: null, raw: null, error: 'down' } : { label, raw: JSON.stringify({ label }) }]),
    );
    await connection.execute(
      `insert into evaluations (uuid, tenant_uuid, created_at, updated_at, session_uuid, conversation_uuid, agent_uuid, channel, settings_source, block, mode, status,
         results, success, success_reason, summary, errors, llm_calls, tokens, runs)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'default', ?, 'per_analyzer', ?, ?::jsonb, ?, null, null, '[]', ?, ?, 1)`,
      [id, tenant.tenant.uuid, row.at, row.at, uuid(), uuid(), row.agent, row.channel, row.channel === 'voice' ? 'voice' : 'text', row.status ?? 'completed', JSON.stringify(results), row.success, row.calls, row.tokens],
    );
  }
  return uuids;
}

const A1 = '0190d5c2-0000-7000-8000-0000000000a1';
const A2 = '0190d5c2-0000-7000-8000-0000000000a2';
const ROWS: Seed[] = [
  { agent: A1, channel: 'chat', at: '2025-01-01T10:00:00.000Z', success: true, labels: { sentiment_analyzer: 'positive', emotion_detection: 'joy' }, calls: 3, tokens: 100 },
  { agent: A1, channel: 'chat', at: '2025-01-01T23:59:59.999Z', success: false, labels: { sentiment_analyzer: 'negative' }, calls: 2, tokens: 50 },
  { agent: A1, channel: 'voice', at: '2025-01-02T00:00:00.000Z', success: null, status: 'failed', labels: { sentiment_analyzer: null }, calls: 1, tokens: 0 },
  { agent: A2, channel: 'sms', at: '2025-01-02T12:00:00.000Z', success: true, labels: { sentiment_analyzer: 'positive', emotion_detection: 'anger' }, calls: 3, tokens: 70 },
  { agent: A2, channel: 'chat', at: '2025-01-03T08:00:00.000Z', success: true, labels: { sentiment_analyzer: 'neutral' }, calls: 1, tokens: 10 },
];

describe('GET /api/v1/evaluations', () => {
  let tenant: TestTenant;
  let ids: string[];
  beforeAll(async () => {
    tenant = await kit.createTenant();
    ids = await seed(tenant, ROWS);
  });
  /** The seeded rows (1-based, as in ROWS) the list answers, in its order. */
  const listed = async (query: string): Promise<number[]> => {
    const res = await tenant.api.get(`/api/v1/evaluations${query}`).expect(200);
    return res.body.data.items.map((item: { uuid: string }) => ids.indexOf(item.uuid) + 1);
  };

  it('lists newest first, paginated, in the documented shape', async () => {
    const res = await tenant.api.get('/api/v1/evaluations').expect(200);
    expect(res.body.data.pagination).toEqual({ current_page: 1, per_page: 25, total: 5, last_page: 1, from: 1, to: 5, has_more: false });
    expect(responseSchemaErrors(kit, 'GET', '/api/v1/evaluations', res.body)).toBeNull();
    expect(await listed('')).toEqual([5, 4, 3, 2, 1]);
    const page = await tenant.api.get('/api/v1/evaluations?per_page=2&page=2').expect(200);
    expect(page.body.data.pagination).toMatchObject({ current_page: 2, total: 5, last_page: 3, from: 3, to: 4, has_more: true });
    expect(page.body.data.items.map((item: { uuid: string }) => ids.indexOf(item.uuid) + 1)).toEqual([3, 2]);
    expect(res.body.data.items[0]).toMatchObject({ agent_uuid: A2, channel: 'chat', results: { sentiment_analyzer: { label: 'neutral' } }, success: true, llm_calls: 1, tokens: 10 });
  });

  it('filters by analyzer and label (case-insensitive), success, agent, channel and status', async () => {
    expect(await listed('?analyzer=sentiment_analyzer&label=positive')).toEqual([4, 1]);
    expect(await listed('?analyzer=sentiment_analyzer&label=POSITIVE')).toEqual([4, 1]);
    expect(await listed('?analyzer=emotion_detection&label=joy')).toEqual([1]);
    expect(await listed('?analyzer=knowledge_gap&label=yes')).toEqual([]);
    expect(await listed('?success=true')).toEqual([5, 4, 1]);
    expect(await listed('?success=false')).toEqual([2]);
    expect(await listed(`?agent_uuid=${A2}`)).toEqual([5, 4]);
    expect(await listed('?channel=chat')).toEqual([5, 2, 1]);
    expect(await listed('?status=failed')).toEqual([3]);
    expect(await listed(`?agent_uuid=${A1}&channel=chat&success=true`)).toEqual([1]);
  });

  it('filters by a half-open date range: from <= created_at < to', async () => {
    expect(await listed('?from=2025-01-02&to=2025-01-03')).toEqual([4, 3]);
    expect(await listed('?from=2025-01-01T23:59:59.999Z&to=2025-01-02T00:00:00Z')).toEqual([2]);
    expect(await listed('?from=2025-01-02T13:00:00%2B01:00')).toEqual([5, 4]);
    expect(await listed('?to=2025-01-01T10:00:00.001Z')).toEqual([1]);
  });

  it('refuses bad filters with 422 naming each', async () => {
    const refused = async (query: string) => {
      const res = await tenant.api.get(`/api/v1/evaluations${query}`).expect(422);
      return res.body.errors;
    };
    expect(await refused('?from=yesterday&to=2025-13-01')).toEqual({ from: [expect.stringContaining('ISO 8601')], to: [expect.stringContaining('ISO 8601')] });
    expect(Object.keys(await refused('?analyzer=sentiment_analyzer'))).toEqual(['label']);
    expect(Object.keys(await refused('?label=positive'))).toEqual(['analyzer']);
    expect(Object.keys(await refused('?analyzer=mood&label=x'))).toEqual(['analyzer']);
    expect(Object.keys(await refused('?success=maybe'))).toEqual(['success']);
    expect(Object.keys(await refused('?status=done'))).toEqual(['status']);
  });

  it('shows only the tenant’s own records', async () => {
    const other = await kit.createTenant();
    const res = await other.api.get('/api/v1/evaluations').expect(200);
    expect(res.body.data.items).toEqual([]);
  });
});

describe('GET /api/v1/analytics/evaluations', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await kit.createTenant();
    await seed(tenant, ROWS);
  });

  it('aggregates every record: verdicts, calls, tokens, labels per analyzer, by agent and by UTC day', async () => {
    const res = await tenant.api.get('/api/v1/analytics/evaluations').expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Evaluation analytics',
      data: {
        sessions_evaluated: 5,
        success: { true: 3, false: 1, unknown: 1, rate: 0.75 },
        llm_calls: 10,
        tokens: 230,
        analyzers: { emotion_detection: { anger: 1, joy: 1 }, sentiment_analyzer: { negative: 1, neutral: 1, positive: 2 } },
        by_agent: [
          { agent_uuid: A1, sessions_evaluated: 3, success_rate: 0.5, llm_calls: 6, tokens: 150 },
          { agent_uuid: A2, sessions_evaluated: 2, success_rate: 1, llm_calls: 4, tokens: 80 },
        ],
        by_day: [
          { day: '2025-01-01', sessions_evaluated: 2, success_rate: 0.5, llm_calls: 5, tokens: 150 },
          { day: '2025-01-02', sessions_evaluated: 2, success_rate: 1, llm_calls: 4, tokens: 70 },
          { day: '2025-01-03', sessions_evaluated: 1, success_rate: 1, llm_calls: 1, tokens: 10 },
        ],
      },
    });
    expect(responseSchemaErrors(kit, 'GET', '/api/v1/analytics/evaluations', res.body)).toBeNull();
  });

  it('takes the same filters: agent, channel, half-open date range', async () => {
    const data = async (query: string) => (await tenant.api.get(`/api/v1/analytics/evaluations${query}`).expect(200)).body.data;
    expect(await data(`?agent_uuid=${A2}&from=2025-01-03`)).toMatchObject({ sessions_evaluated: 1, tokens: 10, by_agent: [{ agent_uuid: A2, sessions_evaluated: 1 }] });
    expect(await data('?channel=voice')).toMatchObject({
      sessions_evaluated: 1,
      success: { true: 0, false: 0, unknown: 1, rate: null },
      analyzers: {},
      by_agent: [{ agent_uuid: A1, success_rate: null }],
    });
    expect(await data('?from=2025-01-01T10:00:00.001Z&to=2025-01-02T00:00:00Z')).toMatchObject({ sessions_evaluated: 1, success: { false: 1, rate: 0 } });
    await tenant.api.get('/api/v1/analytics/evaluations?to=soon').expect(422);
  });

  it('answers zeros for a tenant without records', async () => {
    const other = await kit.createTenant();
    const res = await other.api.get('/api/v1/analytics/evaluations').expect(200);
    expect(res.body.data).toEqual({
      sessions_evaluated: 0,
      success: { true: 0, false: 0, unknown: 0, rate: null },
      llm_calls: 0,
      tokens: 0,
      analyzers: {},
      by_agent: [],
      by_day: [],
    });
  });
});

describe('without a model', () => {
  it('a closed session still gets its record, failed with the configuration error (the sweep fixture relies on it)', async () => {
    const tenant = await kit.createTenant();
    const ids = await evaluationFixtures['evaluation.evaluated-session'](tenant, kit);
    const res = await tenant.api.get(`/api/v1/sessions/${ids['evaluation.evaluated-session']}/evaluation`).expect(200);
    expect(res.body.data).toMatchObject({
      session_uuid: ids['conversations.session'],
      conversation_uuid: ids['conversations.conversation'],
      agent_uuid: ids['agents.agent'],
      status: 'failed',
      results: { sentiment_analyzer: { label: null, raw: null, error: expect.stringContaining('LLM_BASE_URL') } },
      errors: [expect.stringContaining('summary: no LLM server is configured')],
      llm_calls: 2,
      tokens: 0,
    });
  });

  it('the cross-tenant sweep passes on the evaluation result routes', async () => {
    const routes = kit.kernel.registry.list().filter((route) => route.path.startsWith('/api/v1/sessions/:uuid/evaluation'));
    const sweepKit = { ...kit, kernel: { registry: { list: () => routes } } } as unknown as TestKernel;
    const results = await sweepCrossTenant(sweepKit, { ...agentFixtures, ...conversationFixtures, ...evaluationFixtures });
    expect(results.map((result) => result.route).sort()).toEqual(['GET /api/v1/sessions/:uuid/evaluation', 'POST /api/v1/sessions/:uuid/evaluation/rerun']);
    expect(results.filter((result) => result.problem)).toEqual([]);
  });
});
