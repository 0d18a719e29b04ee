import path from 'node:path';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as evaluationFixtures } from '../../../plugins/evaluation/testing';
import { ANALYZERS } from '../../../plugins/evaluation';
import { sessionizationFromSettings } from '../../../plugins/evaluation/settings';

const plugins = ['agents', 'conversations', 'evaluation'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NO_OVERRIDE = { success: false, message: 'Agent has no evaluate override; assign one first', data: [] };
const AGENT_NOT_FOUND = { success: false, message: 'Agent not found', data: [] };
/** The spec's table, in its order, with our `mode` after `source`. */
const MEMBERS = ['agent_uuid', 'is_default', 'is_active', 'source', 'mode', 'sessionization', 'text', 'voice', 'created_at', 'updated_at'];

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins });
});
afterAll(() => kit?.stop());

type Api = TestTenant['api'];

const createAgent = async (api: Api = kit.api, name = 'Reception'): Promise<string> =>
  (await api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
const evaluationOf = async (uuid: string, api: Api = kit.api) => (await api.get(`/api/v1/agents/${uuid}`).expect(200)).body.data.settings.evaluation;
const defaultOf = async (api: Api = kit.api) => (await api.get('/api/v1/evaluate/default').expect(200)).body.data;
const rowsOf = async (tenantUuid: string): Promise<Array<{ agent_uuid: string | null }>> =>
  kit.kernel.orm.em.fork().getConnection().execute('select agent_uuid from evaluate_settings where tenant_uuid = ?', [tenantUuid]);

/** A copy of `settings` with `change` applied at `path` (e.g. ['text', 'sentiment_analyzer', 'enabled']). */
function withChange(settings: any, path: string[], value: unknown): any {
  const copy = structuredClone(settings);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = value;
  return copy;
}
/** The settings without their timestamps (which every write moves). */
const valuesOnly = ({ created_at, updated_at, ...values }: any) => values;

/** SQL statements the ORM's connection runs while `fn` runs. */
async function statementsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(kit.kernel.orm.config.getLogger(), 'logQuery');
  try {
    await fn();
    return spy.mock.calls.map(([context]) => String(context.query));
  } finally {
    spy.mockRestore();
  }
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const analyzerShape = (name: string) =>
  name === 'success_evaluation_prompt' ? { enabled: false, description: expect.stringMatching(/\S/), prompt: '' } : { enabled: false, description: expect.stringMatching(/\S/) };
const builtInBlock = () => Object.fromEntries(ANALYZERS.map((name) => [name, analyzerShape(name)]));

describe('the default: GET|PUT /api/v1/evaluate/default', () => {
  it('before it is saved, returns the built-in values, every member of the spec’s table, without writing a row', async () => {
    const tenant = await kit.createTenant();
    const res = await tenant.api.get('/api/v1/evaluate/default').expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Default evaluate settings',
      data: {
        agent_uuid: null,
        is_default: true,
        is_active: true,
        source: 'default',
        mode: 'per_analyzer',
        sessionization: { session_mode: 'sliding_timeout', timeout_minutes: 30, report_language: 'en', summary_prompt: expect.stringMatching(/\S/) },
        text: builtInBlock(),
        voice: builtInBlock(),
        created_at: null,
        updated_at: null,
      },
    });
    const data = res.body.data;
    expect(Object.keys(data)).toEqual(MEMBERS);
    expect(Object.keys(data.sessionization)).toEqual(['session_mode', 'timeout_minutes', 'report_language', 'summary_prompt']);
    // The ten analyzers of the spec, in its order, in both blocks.
    expect(ANALYZERS).toHaveLength(10);
    expect(Object.keys(data.text)).toEqual([...ANALYZERS]);
    expect(Object.keys(data.voice)).toEqual([...ANALYZERS]);
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([]);
  });

  it('PUT merges at every depth: a nested member changes alone, and a later PUT keeps the earlier changes', async () => {
    const tenant = await kit.createTenant();
    const before = await defaultOf(tenant.api);

    const first = await tenant.api.put('/api/v1/evaluate/default').send({ text: { sentiment_analyzer: { enabled: true } } }).expect(200);
    expect(first.body).toMatchObject({ success: true, message: 'Default evaluate settings updated' });
    const afterFirst = withChange(before, ['text', 'sentiment_analyzer', 'enabled'], true);
    expect(first.body.data).toEqual({ ...afterFirst, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) });
    // The same analyzer of the voice block, and its description, are untouched.
    expect(first.body.data.voice.sentiment_analyzer).toEqual(before.voice.sentiment_analyzer);
    expect(first.body.data.text.sentiment_analyzer.description).toBe(before.text.sentiment_analyzer.description);

    const second = await tenant.api.put('/api/v1/evaluate/default').send({ sessionization: { timeout_minutes: 10 } }).expect(200);
    const afterSecond = withChange(afterFirst, ['sessionization', 'timeout_minutes'], 10);
    expect(valuesOnly(second.body.data)).toEqual(valuesOnly(afterSecond));
    expect(second.body.data.created_at).toBe(first.body.data.created_at);
    expect(second.body.data.updated_at >= first.body.data.updated_at).toBe(true);

    const third = await tenant.api
      .put('/api/v1/evaluate/default')
      .send({ voice: { success_evaluation_prompt: { prompt: 'The caller booked a visit.' } }, sessionization: { report_language: 'es-ES' }, mode: 'batched', is_active: false })
      .expect(200);
    let expected = withChange(afterSecond, ['voice', 'success_evaluation_prompt', 'prompt'], 'The caller booked a visit.');
    expected = withChange(expected, ['sessionization', 'report_language'], 'es-ES');
    expected = { ...expected, mode: 'batched', is_active: false };
    expect(valuesOnly(third.body.data)).toEqual(valuesOnly(expected));

    // What a later GET reads is what was stored, not what the PUT echoed.
    expect(valuesOnly(await defaultOf(tenant.api))).toEqual(valuesOnly(expected));
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([{ agent_uuid: null }]);
  });

  it('an empty body changes nothing, and read-only members can be sent back as read', async () => {
    const tenant = await kit.createTenant();
    const saved = (await tenant.api.put('/api/v1/evaluate/default').send({ sessionization: { timeout_minutes: 7 } }).expect(200)).body.data;
    const unchanged = await tenant.api.put('/api/v1/evaluate/default').send({}).expect(200);
    expect(unchanged.body.data).toEqual(saved);
    const sentBack = await tenant.api
      .put('/api/v1/evaluate/default')
      .send({ ...saved, source: 'agent', is_default: false, agent_uuid: '0190d5c2-0000-7000-8000-000000000001', created_at: null, is_active: false })
      .expect(200);
    expect(sentBack.body.data).toMatchObject({ source: 'default', agent_uuid: null, is_default: true, is_active: false, created_at: saved.created_at });
    expect(sentBack.body.data.sessionization.timeout_minutes).toBe(7);
  });

  it('each tenant has its own default', async () => {
    const one = await kit.createTenant();
    const two = await kit.createTenant();
    await one.api.put('/api/v1/evaluate/default').send({ sessionization: { timeout_minutes: 11 } }).expect(200);
    await two.api.put('/api/v1/evaluate/default').send({ sessionization: { timeout_minutes: 22 } }).expect(200);
    expect((await defaultOf(one.api)).sessionization.timeout_minutes).toBe(11);
    expect((await defaultOf(two.api)).sessionization.timeout_minutes).toBe(22);
  });
});

describe('agent overrides: POST .../evaluate/assign, PUT|DELETE /api/v1/agents/{uuid}/evaluate', () => {
  it('assign copies the current default; the override is independent of later default changes; a second assign returns it unchanged', async () => {
    const tenant = await kit.createTenant();
    const current = (
      await tenant.api
        .put('/api/v1/evaluate/default')
        .send({ mode: 'batched', sessionization: { timeout_minutes: 45 }, voice: { knowledge_gap: { enabled: true, description: 'Did the agent miss facts?' } } })
        .expect(200)
    ).body.data;
    const agent = await createAgent(tenant.api);

    const assigned = await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    expect(assigned.body).toEqual({
      success: true,
      message: 'Evaluate override assigned',
      data: { ...current, agent_uuid: agent, is_default: false, source: 'agent', created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) },
    });
    expect(Object.keys(assigned.body.data)).toEqual(MEMBERS);

    // The override is its own copy: changing the default afterwards leaves it alone.
    await tenant.api.put('/api/v1/evaluate/default').send({ mode: 'per_analyzer', sessionization: { timeout_minutes: 5 }, voice: { knowledge_gap: { enabled: false } } }).expect(200);
    expect(await evaluationOf(agent, tenant.api)).toEqual(assigned.body.data);
    const again = await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    expect(again.body).toEqual({ success: true, message: 'Agent already has an evaluate override', data: assigned.body.data });
  });

  it('assign works before the default was ever saved (from the built-in values), and still writes no default', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);
    const res = await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    expect(valuesOnly(res.body.data)).toEqual({ ...valuesOnly(await defaultOf(tenant.api)), agent_uuid: agent, is_default: false, source: 'agent' });
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([{ agent_uuid: agent }]);
  });

  it('PUT merges into the override and leaves the default alone; without an override it answers 404', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);
    await tenant.api.put(`/api/v1/agents/${agent}/evaluate`).send({ is_active: false }).expect(404, NO_OVERRIDE);
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([]);

    const assigned = (await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200)).body.data;
    const changed = await tenant.api.put(`/api/v1/agents/${agent}/evaluate`).send({ text: { intent_labels: { enabled: true } } }).expect(200);
    expect(changed.body).toMatchObject({ success: true, message: 'Evaluate override updated' });
    const afterFirst = withChange(assigned, ['text', 'intent_labels', 'enabled'], true);
    expect(changed.body.data).toEqual({ ...afterFirst, updated_at: expect.stringMatching(ISO) });

    const again = await tenant.api.put(`/api/v1/agents/${agent}/evaluate`).send({ is_active: false, sessionization: { session_mode: 'per_conversation' } }).expect(200);
    const afterSecond = withChange({ ...afterFirst, is_active: false }, ['sessionization', 'session_mode'], 'per_conversation');
    expect(valuesOnly(again.body.data)).toEqual(valuesOnly(afterSecond));
    expect(valuesOnly(await evaluationOf(agent, tenant.api))).toEqual(valuesOnly(afterSecond));

    const fallback = await defaultOf(tenant.api);
    expect(fallback).toMatchObject({ is_active: true, sessionization: { session_mode: 'sliding_timeout' }, created_at: null });
    expect(fallback.text.intent_labels.enabled).toBe(false);
  });

  it('DELETE removes the override and is idempotent: deleted true, then false', async () => {
    const agent = await createAgent();
    await kit.api.delete(`/api/v1/agents/${agent}/evaluate`).expect(200, { success: true, message: 'Agent had no evaluate override', data: { deleted: false } });
    await kit.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    await kit.api.delete(`/api/v1/agents/${agent}/evaluate`).expect(200, { success: true, message: 'Evaluate override removed', data: { deleted: true } });
    await kit.api.delete(`/api/v1/agents/${agent}/evaluate`).expect(200, { success: true, message: 'Agent had no evaluate override', data: { deleted: false } });
    await kit.api.put(`/api/v1/agents/${agent}/evaluate`).send({ is_active: false }).expect(404, NO_OVERRIDE);
    expect((await kit.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200)).body.message).toBe('Evaluate override assigned');
  });

  it('an unknown agent answers 404 on every agent route', async () => {
    const unknown = '0190d5c2-0000-7000-8000-000000000099';
    await kit.api.post(`/api/v1/agents/${unknown}/evaluate/assign`).expect(404, AGENT_NOT_FOUND);
    await kit.api.put(`/api/v1/agents/${unknown}/evaluate`).send({ is_active: false }).expect(404, AGENT_NOT_FOUND);
    await kit.api.delete(`/api/v1/agents/${unknown}/evaluate`).expect(404, AGENT_NOT_FOUND);
    const res = await kit.api.delete('/api/v1/agents/not-a-uuid/evaluate').expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['uuid']);
  });
});

describe('tenant isolation', () => {
  it("another tenant's agent answers 404 on every override route and is left untouched", async () => {
    const owner = await kit.createTenant();
    const agent = await createAgent(owner.api);
    await owner.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    const before = await evaluationOf(agent, owner.api);

    await kit.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(404, AGENT_NOT_FOUND);
    await kit.api.put(`/api/v1/agents/${agent}/evaluate`).send({ is_active: false }).expect(404, AGENT_NOT_FOUND);
    await kit.api.delete(`/api/v1/agents/${agent}/evaluate`).expect(404, AGENT_NOT_FOUND);
    expect(await evaluationOf(agent, owner.api)).toEqual(before);
    expect(await rowsOf(kit.tenant.uuid)).not.toContainEqual({ agent_uuid: agent });
  });

  it('the cross-tenant sweep passes on the evaluate routes, with the plugin’s fixtures', async () => {
    // Only this plugin's settings routes: the other routes of this kernel have their own tests.
    const routes = kit.kernel.registry.list().filter((route) => route.path.includes('/evaluate'));
    const results = await sweepCrossTenant(kit, { ...agentFixtures, ...evaluationFixtures }, { only: (route) => routes.includes(route) });
    expect(results.map((result) => result.route).sort()).toEqual([
      'DELETE /api/v1/agents/:uuid/evaluate',
      'POST /api/v1/agents/:uuid/evaluate/assign',
      'PUT /api/v1/agents/:uuid/evaluate',
    ]);
    expect(results.filter((result) => result.problem)).toEqual([]);
  });
});

describe('settings.evaluation on the agent', () => {
  it('shows the effective settings with their source: the default, then the override, then the default again after delete', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);

    const inherited = await evaluationOf(agent, tenant.api);
    expect(inherited).toEqual(await defaultOf(tenant.api));
    expect(inherited).toMatchObject({ source: 'default', agent_uuid: null, is_default: true });

    // The default's changes show on agents without an override.
    await tenant.api.put('/api/v1/evaluate/default').send({ text: { emotion_detection: { enabled: true } }, sessionization: { timeout_minutes: 60 } }).expect(200);
    expect(await evaluationOf(agent, tenant.api)).toMatchObject({ source: 'default', sessionization: { timeout_minutes: 60 }, text: { emotion_detection: { enabled: true } } });

    await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    const override = (await tenant.api.put(`/api/v1/agents/${agent}/evaluate`).send({ is_active: false, sessionization: { timeout_minutes: 15 } }).expect(200)).body.data;
    expect(await evaluationOf(agent, tenant.api)).toEqual(override);
    expect(override).toMatchObject({ source: 'agent', agent_uuid: agent, is_default: false, is_active: false, sessionization: { timeout_minutes: 15 } });

    // The list shows the same, and another agent still inherits the default.
    const other = await createAgent(tenant.api, 'Other');
    const list = (await tenant.api.get('/api/v1/agents?per_page=100').expect(200)).body.data.items;
    const byUuid = new Map(list.map((a: any) => [a.agent_uuid, a.settings.evaluation]));
    expect(byUuid.get(agent)).toEqual(override);
    expect(byUuid.get(other)).toEqual(await defaultOf(tenant.api));
    expect(byUuid.get(other)).toMatchObject({ source: 'default', is_active: true, sessionization: { timeout_minutes: 60 } });

    await tenant.api.delete(`/api/v1/agents/${agent}/evaluate`).expect(200);
    expect(await evaluationOf(agent, tenant.api)).toMatchObject({ source: 'default', agent_uuid: null, is_active: true, sessionization: { timeout_minutes: 60 } });
  });

  it('is read-only on the agent: a PUT of the agent with settings.evaluation ignores it', async () => {
    const agent = await createAgent();
    const read = (await kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data;
    const res = await kit.api
      .put(`/api/v1/agents/${agent}`)
      .send({ ...read, settings: { ...read.settings, evaluation: { ...read.settings.evaluation, is_active: false } } })
      .expect(200);
    expect(res.body.data.settings.evaluation).toEqual(read.settings.evaluation);
    expect(await rowsOf(kit.tenant.uuid)).not.toContainEqual({ agent_uuid: agent });
  });

  it('is loaded for a whole page in one query, however many agents the page has', async () => {
    const tenant = await kit.createTenant();
    const agents: string[] = [];
    for (let i = 0; i < 5; i++) agents.push(await createAgent(tenant.api, `Agent ${i}`));
    await tenant.api.put('/api/v1/evaluate/default').send({ sessionization: { timeout_minutes: 42 } }).expect(200);
    for (const agent of agents.slice(0, 3)) await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);

    let page: any[] = [];
    const five = await statementsDuring(async () => {
      page = (await tenant.api.get('/api/v1/agents?per_page=5').expect(200)).body.data.items;
    });
    const one = await statementsDuring(() => tenant.api.get('/api/v1/agents?per_page=1').expect(200));
    const single = await statementsDuring(() => tenant.api.get(`/api/v1/agents/${agents[4]}`).expect(200));

    // The counting works (it sees the statements at all) ...
    expect(five.filter((sql) => sql.includes('agents')).length).toBeGreaterThan(0);
    // ... and the settings cost one statement per page, not one per agent.
    const evaluation = (statements: string[]) => statements.filter((sql) => sql.includes('evaluate_settings'));
    expect(evaluation(five)).toHaveLength(1);
    expect(evaluation(one)).toHaveLength(1);
    expect(evaluation(single)).toHaveLength(1);
    expect(five.length).toBe(one.length);

    expect(page).toHaveLength(5);
    const sources = new Map(page.map((a) => [a.agent_uuid, a.settings.evaluation.source]));
    expect(agents.map((uuid) => sources.get(uuid))).toEqual(['agent', 'agent', 'agent', 'default', 'default']);
    expect(page.every((a) => a.settings.evaluation.sessionization.timeout_minutes === 42)).toBe(true);
  });
});

describe('bad input: 422 with nested dotted paths', () => {
  const paths = (res: { body: { errors: Record<string, string[]> } }) => Object.keys(res.body.errors).sort();
  let agent: string;
  beforeAll(async () => {
    agent = await createAgent();
    await kit.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
  });

  for (const [name, url] of [
    ['the default', () => '/api/v1/evaluate/default'],
    ['an override', () => `/api/v1/agents/${agent}/evaluate`],
  ] as const) {
    describe(name, () => {
      it('names sessionization.timeout_minutes when it is not an integer of 1..10080', async () => {
        for (const timeout_minutes of ['ten', 0, -5, 10_081, 1.5, null]) {
          const res = await kit.api.put(url()).send({ sessionization: { timeout_minutes } }).expect(422);
          expect(res.body).toEqual({ message: expect.any(String), errors: { 'sessionization.timeout_minutes': [expect.any(String)] } });
        }
        const text = await kit.api.put(url()).send({ sessionization: { timeout_minutes: 'ten' } }).expect(422);
        expect(text.body.errors['sessionization.timeout_minutes']).toEqual(['must be an integer']);
        await kit.api.put(url()).send({ sessionization: { timeout_minutes: 1 } }).expect(200);
        await kit.api.put(url()).send({ sessionization: { timeout_minutes: 10_080 } }).expect(200);
      });

      it('names text.sentiment_analyzer.enabled when it is not a boolean, and text.foo as unknown', async () => {
        const res = await kit.api.put(url()).send({ text: { sentiment_analyzer: { enabled: 'yes' } } }).expect(422);
        expect(res.body.errors).toEqual({ 'text.sentiment_analyzer.enabled': ['must be a boolean'] });
        const unknown = await kit.api.put(url()).send({ text: { foo: { enabled: true } } }).expect(422);
        expect(unknown.body.errors).toEqual({ 'text.foo': ['is not allowed'] });
      });

      it('refuses every wrong member at once, each at its own path, unknown ones included', async () => {
        const res = await kit.api
          .put(url())
          .send({
            is_active: 'no',
            mode: 'cheap',
            bogus: 1,
            sessionization: { session_mode: 'forever', report_language: '', summary_prompt: 5, extra: true },
            text: { knowledge_gap: { description: 'x'.repeat(4001), label: 'x' }, success_evaluation_prompt: { prompt: 'x'.repeat(20_001) } },
            voice: { sentiment_analyzer: true, intent_labels: { prompt: 'only the success analyzer has one' } },
          })
          .expect(422);
        expect(paths(res)).toEqual(
          [
            'bogus',
            'is_active',
            'mode',
            'sessionization.extra',
            'sessionization.report_language',
            'sessionization.session_mode',
            'sessionization.summary_prompt',
            'text.knowledge_gap.description',
            'text.knowledge_gap.label',
            'text.success_evaluation_prompt.prompt',
            'voice.intent_labels.prompt',
            'voice.sentiment_analyzer',
          ].sort(),
        );
        expect(res.body.errors['mode']).toEqual(['must be one of: per_analyzer, batched']);
        expect(res.body.errors['sessionization.session_mode']).toEqual(['must be one of: sliding_timeout, per_conversation']);
      });

      it('accepts the limits: 4000-character descriptions, 20000-character prompts, a 35-character language', async () => {
        await kit.api
          .put(url())
          .send({
            text: { knowledge_gap: { description: 'x'.repeat(4000) }, success_evaluation_prompt: { prompt: 'x'.repeat(20_000) } },
            sessionization: { report_language: 'x'.repeat(35), summary_prompt: '' },
          })
          .expect(200);
        expect(paths(await kit.api.put(url()).send({ sessionization: { report_language: 'x'.repeat(36) } }).expect(422))).toEqual(['sessionization.report_language']);
      });

      it('changes nothing when refused', async () => {
        const before = await evaluationOf(agent);
        const defaultBefore = await defaultOf();
        await kit.api.put(url()).send({ is_active: !before.is_active, sessionization: { timeout_minutes: 0 } }).expect(422);
        expect(await evaluationOf(agent)).toEqual(before);
        expect(await defaultOf()).toEqual(defaultBefore);
      });
    });
  }
});

describe('when the agent is deleted', () => {
  it('its override goes too (on agent.deleted), and the default and other overrides stay', async () => {
    const tenant = await kit.createTenant();
    await tenant.api.put('/api/v1/evaluate/default').send({ is_active: false }).expect(200);
    const agent = await createAgent(tenant.api);
    const kept = await createAgent(tenant.api, 'Kept');
    await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    await tenant.api.post(`/api/v1/agents/${kept}/evaluate/assign`).expect(200);

    await tenant.api.delete(`/api/v1/agents/${agent}`).expect(200);
    await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(404, AGENT_NOT_FOUND);
    await eventually(async () => !(await rowsOf(tenant.tenant.uuid)).some((row) => row.agent_uuid === agent));
    expect((await rowsOf(tenant.tenant.uuid)).map((row) => row.agent_uuid).sort()).toEqual([kept, null].sort());
  });
});

describe('sessionization for the conversations plugin', () => {
  /** What the conversations plugin gets for this agent, in the tenant's context as a request or bus message has it. */
  const sessionizationOf = (tenant: TestTenant, agentUuid: string) =>
    runInContext({ tenant: tenant.tenant }, () => sessionizationFromSettings.forAgent(kit.kernel.orm.em.fork(), agentUuid));

  it('follows the agent’s effective settings: built-in, the default, the override, the default again', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);
    expect(await sessionizationOf(tenant, agent)).toEqual({ mode: 'sliding_timeout', timeoutMinutes: 30 });

    await tenant.api.put('/api/v1/evaluate/default').send({ sessionization: { timeout_minutes: 10 } }).expect(200);
    expect(await sessionizationOf(tenant, agent)).toEqual({ mode: 'sliding_timeout', timeoutMinutes: 10 });

    await tenant.api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
    await tenant.api.put(`/api/v1/agents/${agent}/evaluate`).send({ sessionization: { timeout_minutes: 3, session_mode: 'per_conversation' } }).expect(200);
    expect(await sessionizationOf(tenant, agent)).toEqual({ mode: 'per_conversation', timeoutMinutes: 3 });

    // Another tenant's settings do not leak in: it still sees its own built-in values.
    const other = await kit.createTenant();
    expect(await sessionizationOf(other, agent)).toEqual({ mode: 'sliding_timeout', timeoutMinutes: 30 });

    await tenant.api.delete(`/api/v1/agents/${agent}/evaluate`).expect(200);
    expect(await sessionizationOf(tenant, agent)).toEqual({ mode: 'sliding_timeout', timeoutMinutes: 10 });
  });
});
