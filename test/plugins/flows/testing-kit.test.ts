import { Type, ValidationError } from 'switchboard/core';
import { defineAction, defineFlowApp, defineOptions, defineTrigger } from 'switchboard/flows';
import { inputProblems, loadOptions, recordingBus, recordingEgress, runAction, runTrigger } from 'switchboard/flows/testing';
import { OPERATORS } from '../../../plugins/app-logic/conditions';
import { httpApp } from '../../../plugins/app-http';
import { logicApp } from '../../../plugins/app-logic';
import { scheduleApp } from '../../../plugins/app-schedule';

/**
 * The flow-app test kit without a kernel, imported as a partner imports it. Logic, HTTP
 * and schedule are the built-in apps under test; `leadsApp` is a partner's app with an
 * event trigger, a poll trigger and a searchable option list.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 422 a kit call throws, as `{ status, errors }`. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; errors: unknown }> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ValidationError)) throw new Error(`expected a ValidationError, got ${String(error)}`);
  return { status: error.status, errors: error.errors };
}

const LeadsInput = Type.Object({ source: Type.Union([Type.Literal('web'), Type.Literal('fair')]) }, { additionalProperties: false });
const leadsApp = defineFlowApp({
  uid: 'leads',
  name: 'Leads',
  description: 'A partner’s leads service',
  icon: 'data:,',
  category: 'connect',
  auth: { type: 'api_key', schema: Type.Object({ api_key: Type.String({ minLength: 8 }) }, { additionalProperties: false }) },
  triggers: [
    defineTrigger({
      key: 'lead_created',
      name: 'Lead created',
      description: 'A lead from one source',
      input: LeadsInput,
      outputSample: {},
      event: { topic: 'leads.created', matches: (config, message) => (message.payload as { source: string }).source === config.source },
    }),
    defineTrigger({
      key: 'new_leads',
      name: 'New leads',
      description: 'Polls the service',
      input: LeadsInput,
      outputSample: {},
      poll: {
        intervalSeconds: 60,
        async run({ egress, input }, cursor) {
          const page = (await egress.request('https://api.leads.test/leads', { query: { source: input.source, after: (cursor as string | null) ?? '' } })).json<Array<{ id: string }>>();
          return { events: page, cursor: page.length > 0 ? page[page.length - 1].id : cursor };
        },
      },
    }),
  ],
  options: [
    defineOptions({
      kind: 'owners',
      params: Type.Object({ team: Type.String() }, { additionalProperties: false }),
      searchable: true,
      async load({ egress, connection, params, search, cursor }) {
        const answer = await egress.request('https://api.leads.test/owners', { headers: { 'x-api-key': String(connection!.credentials.api_key) }, query: { team: params.team, q: search ?? '', after: cursor ?? '' } });
        return { options: answer.json<string[]>().map((name) => ({ label: name, value: name.toLowerCase() })), nextCursor: 'page-2' };
      },
    }),
  ],
});
const CONNECTION = { connection: { credentials: { api_key: 'k-12345678' } } };

describe('runAction', () => {
  it('runs an action as the engine does: the branch it chose, each condition, a fresh execution and step', async () => {
    const conditions = [{ left: 120, operator: 'greater_than', right: '100' }];
    const run = await runAction(logicApp, 'if_condition', { conditions });
    expect(run).toMatchObject({ output: { result: true, branch: 'true' }, branch: 'true', resumeAt: null });
    const [execution, step] = run.idempotencyKey.split(':');
    expect([execution, step]).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);
  });

  it('refuses input its schema refuses with one 422 naming every member, before running it', async () => {
    expect(await refusal(runAction(logicApp, 'if_condition', { conditions: [{ left: 1, operator: 'equals' }], joiner: 'xor' }))).toEqual({
      status: 422,
      errors: { 'config.conditions.0.right': ['is required'], 'config.joiner': [expect.any(String)] },
    });
    expect((await refusal(runAction(logicApp, 'delay', { amount: 1, unit: 'weeks', extra: 1 }))).errors).toMatchObject({ 'config.unit': expect.any(Array), 'config.extra': ['is not a known member'] });
    // A reference is only allowed while building: at run time it is a value like any other.
    expect((await refusal(runAction(logicApp, 'delay', { amount: '{{step1.n}}', unit: 'hours' }))).errors).toHaveProperty(['config.amount']);
  });

  it('returns the pause a delay asks for and the output as stored, JSON', async () => {
    const before = Date.now();
    const { output, resumeAt } = await runAction(logicApp, 'delay', { amount: 2, unit: 'minutes' });
    expect(resumeAt!.getTime() - before).toBeGreaterThanOrEqual(120_000);
    expect(output).toEqual({ until: resumeAt!.toISOString() });
  });

  it('gives the action a recording egress: the request as sent, with the step’s Idempotency-Key, and the scripted answer', async () => {
    const egress = recordingEgress().reply({ status: 200, headers: { 'content-type': 'application/json' }, body: { ok: true } });
    const run = await runAction(httpApp, 'request', { method: 'POST', url: 'https://shop.example/orders', query: { draft: false }, body: { sku: 'A-1' } }, { egress, executionUuid: 'exec-1', step: { stepUuid: 'step-2' } });
    expect(run.output).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: { ok: true } });
    expect(run.idempotencyKey).toBe('exec-1:step-2');
    expect(egress.requests).toHaveLength(1);
    expect(egress.requests[0]).toMatchObject({ method: 'POST', url: 'https://shop.example/orders?draft=false', headers: { 'idempotency-key': 'exec-1:step-2' } });
    expect(egress.requests[0].json()).toEqual({ sku: 'A-1' });
  });

  it('throws what the action throws (an error status, an unscripted call), and a fresh key per call when testing a step alone', async () => {
    const egress = recordingEgress().reply({ status: 503, body: 'down' });
    await expect(runAction(httpApp, 'request', { method: 'GET', url: 'https://shop.example/x' }, { egress })).rejects.toThrow('HTTP 503 from shop.example: down');
    await expect(runAction(httpApp, 'request', { method: 'GET', url: 'https://shop.example/y' })).rejects.toThrow('recordingEgress: nothing scripted for GET https://shop.example/y');
    const alone = await runAction(logicApp, 'set_variables', { variables: { a: 1 } }, { executionUuid: null });
    expect(alone.idempotencyKey).toMatch(/^test:/);
  });

  it('checks the step’s connection and agent as the builder does', async () => {
    expect((await refusal(runAction(logicApp, 'set_variables', { variables: { a: 1 } }, CONNECTION))).errors).toEqual({
      connection: ['must be null: "Logic" is a builtin app and takes no connection'],
    });
    const agentApp = defineFlowApp({ ...logicApp, uid: 'agentish', name: 'Agentish', requiresAgent: true });
    expect((await refusal(runAction(agentApp, 'set_variables', { variables: {} }))).errors).toEqual({
      'config.variables': [expect.any(String)],
      agent_uuid: ['is required: the actions of "Agentish" work on an agent'],
    });
    const agentUuid = '0190d5c2-0000-7000-8000-0000000000a1';
    expect((await runAction(agentApp, 'set_variables', { variables: { a: 1 } }, { agentUuid })).output).toEqual({ a: 1 });
  });

  it('says which actions an app has when asked for another, and gives no database without a kit', async () => {
    await expect(runAction(logicApp, 'sleep', {})).rejects.toThrow('logic has no action "sleep" (it has if_condition, delay, set_variables)');
    const dbApp = defineFlowApp({
      uid: 'db_app',
      name: 'DB',
      description: 'Reads',
      icon: 'data:,',
      category: 'builtin',
      actions: [defineAction({ key: 'count', name: 'Count', description: 'Counts', input: Type.Object({}), outputSample: 0, run: ({ em }) => em.getConnection().execute('select 1') })],
    });
    await expect(runAction(dbApp, 'count', {})).rejects.toThrow('app code used the database (em.getConnection) but the call has none: pass { kit }');
  });
});

describe('inputProblems', () => {
  it('finds in a config what runAction and loadOptions refuse it for, and nothing in a valid one', async () => {
    const ifCondition = logicApp.actions!.find((action) => action.key === 'if_condition')!;
    const bad = { conditions: [{ left: 1, operator: 'matches_regex', right: '.*' }] };
    expect(inputProblems(ifCondition, bad)).toEqual((await refusal(runAction(logicApp, 'if_condition', bad))).errors);
    expect(inputProblems(ifCondition, bad)).toHaveProperty(['config.conditions.0.operator']);
    expect(inputProblems(ifCondition, { conditions: [{ left: null, operator: 'is_empty' }] })).toEqual({});
    const joiners = logicApp.options!.find((provider) => provider.kind === 'joiners')!;
    expect(inputProblems(joiners, { type: 1 })).toEqual((await refusal(loadOptions(logicApp, 'joiners', { type: 1 }))).errors);
  });
});

describe('loadOptions', () => {
  it('loads a list as the options route does, refusing params its schema refuses', async () => {
    const { result } = await loadOptions(logicApp, 'operators');
    expect(result).toEqual({ options: OPERATORS.map(({ label, value }) => expect.objectContaining({ label, value })) });
    expect(await refusal(loadOptions(logicApp, 'joiners', { type: 'number' }))).toEqual({ status: 422, errors: { 'params.type': ['is not a known member'] } });
  });

  it('gives a searchable list the search, the cursor and the connection, and needs a connection with valid credentials for a connect app', async () => {
    const egress = recordingEgress().reply({ body: ['Ada', 'Grace'] });
    const { result } = await loadOptions(leadsApp, 'owners', { team: 'north' }, { ...CONNECTION, egress, search: 'a', cursor: 'page-1' });
    expect(result).toEqual({ options: [{ label: 'Ada', value: 'ada' }, { label: 'Grace', value: 'grace' }], nextCursor: 'page-2' });
    expect(egress.requests[0]).toMatchObject({ url: 'https://api.leads.test/owners?team=north&q=a&after=page-1', headers: { 'x-api-key': 'k-12345678' } });
    expect((await refusal(loadOptions(leadsApp, 'owners', { team: 'north' }))).errors).toEqual({ connection: ['is required: "Leads" is a connect app (pass { connection: { credentials } })'] });
    expect((await refusal(loadOptions(leadsApp, 'owners', {}, { connection: { credentials: { api_key: 'short' } } }))).errors).toEqual({
      'params.team': ['is required'],
      'connection.credentials.api_key': [expect.stringContaining('fewer than 8')],
    });
  });

  it('refuses an answer that is not a list of string pairs nor a state, as the route’s 502 does', async () => {
    const broken = defineFlowApp({ ...logicApp, uid: 'broken', options: [defineOptions({ kind: 'numbers', params: Type.Object({}), load: () => ({ options: [{ label: 'one', value: 1 as unknown as string }] }) })] });
    await expect(loadOptions(broken, 'numbers')).rejects.toThrow('option list "numbers" answered something that is neither');
  });
});

describe('runTrigger', () => {
  it('runs a schedule’s deploy hook, recording the first tick it publishes', async () => {
    const before = Date.now();
    const run = await runTrigger(scheduleApp, 'every', { amount: 5, unit: 'minutes' }, { lifecycle: 'deploy', step: { versionUuid: 'v-1', stepUuid: 's-1' } });
    expect(run.outputs).toEqual([]);
    expect(run.published).toEqual([
      { id: expect.stringMatching(UUID), topic: 'schedule.tick', payload: { version_uuid: 'v-1', step_uuid: 's-1', trigger: 'every', tick_at: expect.any(String) }, options: expect.objectContaining({ key: 'version:v-1' }) },
    ]);
    expect(Date.parse((run.published[0].payload as { tick_at: string }).tick_at) - before).toBeGreaterThanOrEqual(5 * 60_000);
    expect(await refusal(runTrigger(scheduleApp, 'every', { amount: 0, unit: 'minutes' }, { lifecycle: 'deploy' }))).toEqual({ status: 422, errors: { 'config.amount': [expect.any(String)] } });
  });

  it('turns a deploy hook’s ValidationError into the 422 it is, and can publish on a bus the test gives', async () => {
    const bus = recordingBus();
    await expect(runTrigger(scheduleApp, 'cron', { expression: '61 * * * *' }, { lifecycle: 'deploy', bus })).rejects.toBeInstanceOf(ValidationError);
    await runTrigger(scheduleApp, 'cron', { expression: '0 9 * * 1-5', timezone: 'Europe/Madrid' }, { lifecycle: 'deploy', bus });
    expect(bus.published.map((message) => message.topic)).toEqual(['schedule.tick']);
  });

  it('matches an event against the config; an event its own flow caused never starts it', async () => {
    const flow = { step: { flowUuid: 'flow-1' }, ...CONNECTION };
    expect((await runTrigger(leadsApp, 'lead_created', { source: 'web' }, { ...flow, event: { payload: { source: 'web', id: 'l1' } } })).outputs).toEqual([{ source: 'web', id: 'l1' }]);
    expect((await runTrigger(leadsApp, 'lead_created', { source: 'fair' }, { ...flow, event: { payload: { source: 'web', id: 'l1' } } })).outputs).toEqual([]);
    const caused = { payload: { source: 'web' }, headers: { 'caused-by': 'flow:flow-1' } };
    expect((await runTrigger(leadsApp, 'lead_created', { source: 'web' }, { ...flow, event: caused })).outputs).toEqual([]);
    await expect(runTrigger(leadsApp, 'lead_created', { source: 'web' }, flow)).rejects.toThrow('trigger "lead_created" fires on leads.created events: pass { event: { payload } }');
  });

  it('runs one poll with the cursor given and returns its events and next cursor', async () => {
    const egress = recordingEgress().reply({ body: [{ id: 'l7' }, { id: 'l8' }] }, { body: [] });
    const first = await runTrigger(leadsApp, 'new_leads', { source: 'fair' }, { ...CONNECTION, egress, cursor: 'l6' });
    expect(first).toMatchObject({ outputs: [{ id: 'l7' }, { id: 'l8' }], cursor: 'l8' });
    const next = await runTrigger(leadsApp, 'new_leads', { source: 'fair' }, { ...CONNECTION, egress, cursor: first.cursor });
    expect(next).toMatchObject({ outputs: [], cursor: 'l8' });
    expect(egress.requests.map((request) => request.url)).toEqual(['https://api.leads.test/leads?source=fair&after=l6', 'https://api.leads.test/leads?source=fair&after=l8']);
  });
});
