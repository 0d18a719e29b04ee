import { coreServices, definePlugin, defineRoute, Type } from '../../../../core';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../../core/testing';
import { defineAction, defineFlowApp, defineTrigger, flowApps } from '../../../../plugins/flows';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deployFlow, fire, finished, sql, stepRows, undeployFlow, waitFor, type Deployed } from './engine-helpers';

/**
 * A deployed flow keeps the versions of its trigger and actions: three releases of one
 * app, each booted on the same database as the app's plugin would be upgraded. Release 2
 * adds version 2 of `greet` and `ping` beside version 1; release 3 drops version 1.
 */
const PING = 'versioned.ping';

const greetV1 = defineAction({
  key: 'greet',
  version: 1,
  name: 'Greet',
  description: 'Greets `name`',
  pure: true,
  input: Type.Object({ name: Type.String() }, { additionalProperties: false }),
  outputSample: { text: 'Hello Ada' },
  run: ({ input }) => ({ text: `Hello ${input.name}`, ran: 1 }),
});
const greetV2 = defineAction({
  key: 'greet',
  version: 2,
  name: 'Greet someone',
  description: 'Greets `first_name` with `greeting`',
  pure: true,
  input: Type.Object({ first_name: Type.String(), greeting: Type.String() }, { additionalProperties: false }),
  outputSample: { text: 'Hello, Ada' },
  migrate: (config) => ({ first_name: config.name, greeting: 'Hello' }),
  run: ({ input }) => ({ text: `${input.greeting}, ${input.first_name}`, ran: 2 }),
});
const pingV1 = defineTrigger({
  key: 'ping',
  version: 1,
  name: 'Ping',
  description: 'A ping whose label is the config’s',
  input: Type.Object({ label: Type.String() }, { additionalProperties: false }),
  outputSample: { name: 'Ada' },
  event: { topic: PING, matches: (config, message) => (message.payload as { label?: string }).label === config.label },
});
const pingV2 = defineTrigger({
  key: 'ping',
  version: 2,
  name: 'Ping',
  description: 'A ping whose title is the config’s',
  input: Type.Object({ title: Type.String() }, { additionalProperties: false }),
  outputSample: { name: 'Ada' },
  migrate: (config) => ({ title: config.label }),
  event: { topic: PING, matches: (config, message) => (message.payload as { title?: string }).title === config.title },
});

const RELEASES = {
  1: { version: '1.0.0', triggers: [pingV1], actions: [greetV1] },
  2: { version: '2.0.0', triggers: [pingV1, pingV2], actions: [greetV2, greetV1] },
  3: { version: '3.0.0', triggers: [pingV2], actions: [greetV2] },
};

/** The app's plugin at a release, with a route that publishes pings. */
function versionedPlugin(release: keyof typeof RELEASES) {
  return definePlugin({
    id: 'versioned-app',
    dependsOn: ['flows'],
    contributes: [flowApps.add(defineFlowApp({ uid: 'versioned', name: 'Versioned', description: 'Releases of one app', icon: 'data:,', category: 'builtin', ...RELEASES[release] }))],
    deps: { http: coreServices.http, bus: coreServices.bus },
    init({ http, bus }) {
      http.route(
        defineRoute({
          method: 'POST',
          path: '/api/v1/versioned/pings',
          summary: 'Publishes a ping',
          body: Type.Object({}, { additionalProperties: true }),
          handler: async ({ body }) => {
            await bus.publish(PING, body);
          },
        }),
      );
    },
  });
}

let first: TestKernel;
let kit: TestKernel | undefined;
/** The first kernel's tenant, as every later kernel serves it. */
let owner: TestTenant;

/** A kernel of `release` on the first kernel's database, running the engine; the previous one stops first. */
async function boot(release: keyof typeof RELEASES): Promise<void> {
  await kit?.stop();
  kit = await startTestKernel({
    plugins: [AGENTS, FLOWS, PROBE, versionedPlugin(release)],
    tenant: `release${release}`,
    config: { ...TRANSPORT, busPollIntervalMs: 50, databaseUrl: first.kernel.config.core.databaseUrl },
  });
  owner = { ...first, api: kit.client({ host: `${first.tenant.slug}.${kit.kernel.config.core.baseDomain}`, token: first.token }) };
}

const steps = (api: TestTenant['api'], flowUuid: string) => api.get(`/api/v1/flow/${flowUuid}`).expect(200).then((res) => res.body.data.steps);
const upgrade = (flowUuid: string, stepUuid: string) => owner.api.post(`/api/v1/flow/${flowUuid}/steps/${stepUuid}/upgrade`);
const handled = async () => (await sql<{ n: number }>(kit!, "select count(*)::int as n from bus_inbox where consumer = 'flows.fire-versioned-ping'"))[0].n;
const executionsOf = async (flowUuid: string) => sql<{ uuid: string }>(kit!, 'select uuid from flow_executions where flow_uuid = ? order by created_at, uuid', [flowUuid]);

/** Publishes a ping and waits until the trigger's consumer has handled it. */
async function ping(payload: Record<string, unknown>): Promise<void> {
  const before = await handled();
  await owner.api.post('/api/v1/versioned/pings').send(payload).expect(204);
  await waitFor(handled, (count) => count > before);
}

let live: Deployed;
let draft: { flowUuid: string; trigger: string; greet: string };
let incomplete: { flowUuid: string; greet: string };

async function draftFlow(label: string, greetConfig: Record<string, unknown>) {
  const flowUuid: string = (await first.api.post('/api/v1/flow').send({ name: `draft ${label}` }).expect(201)).body.data.uuid;
  const trigger = (await first.api.post(`/api/v1/flow/${flowUuid}/steps`).send({ app_uid: 'versioned', trigger_key: 'ping', config: { label } }).expect(201)).body.data;
  const greet = (await first.api.post(`/api/v1/flow/${flowUuid}/steps`).send({ app_uid: 'versioned', action_key: 'greet', config: greetConfig }).expect(201)).body.data;
  return { flowUuid, trigger: trigger.uuid as string, greet: greet.uuid as string };
}

beforeAll(async () => {
  // Release 1 builds the flows (serve: HTTP only, so no engine of release 1 runs anything later).
  first = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE, versionedPlugin(1)], role: 'serve', config: TRANSPORT });
  live = await deployFlow(first, [
    { name: 'trigger', app: 'versioned', trigger: 'ping', config: { label: 'go' } },
    { name: 'greet', app: 'versioned', action: 'greet', config: { name: '{{step1.name}}' } },
  ]);
  draft = await draftFlow('b', { name: 'Ada' });
  incomplete = { ...(await draftFlow('c', {})) };
}, 60_000);
afterAll(async () => {
  await kit?.stop();
  await first?.stop();
});

describe('release 2 adds version 2 beside version 1', () => {
  beforeAll(() => boot(2), 60_000);

  it('the catalog shows the app’s release, and each action’s newest version and the versions still run', async () => {
    const apps = (await owner.api.get('/api/v1/flow/apps').expect(200)).body.data;
    expect(apps.find((app: { uid: string }) => app.uid === 'versioned')).toMatchObject({ version: '2.0.0', actions_count: 1, triggers_count: 1 });
    const [action] = (await owner.api.get('/api/v1/flow/apps/versioned/actions').expect(200)).body.data;
    expect(action).toMatchObject({ key: 'greet', version: 2, versions: [1, 2], name: 'Greet someone', input_schema: { required: ['first_name', 'greeting'] } });
    const [trigger] = (await owner.api.get('/api/v1/flow/apps/versioned/triggers').expect(200)).body.data;
    expect(trigger).toMatchObject({ key: 'ping', version: 2, versions: [1, 2] });
  });

  it('a flow deployed with version 1 keeps matching and running version 1', async () => {
    // Version 2's matches() would refuse this ping (its title is not the config's); version 1's takes it by label.
    await ping({ label: 'go', title: 'other', name: 'Ada' });
    const [execution] = await executionsOf(live.flowUuid);
    expect(await finished(kit!, execution.uuid)).toMatchObject({ status: 'succeeded' });
    expect(await stepRows(kit!, execution.uuid)).toEqual([expect.objectContaining({ step_uuid: live.ids.greet, request: { name: 'Ada' }, response: { text: 'Hello Ada', ran: 1 } })]);
  });

  it('steps show the version they were built with and the newest; new steps take the newest', async () => {
    const [trigger, greet] = await steps(owner.api, live.flowUuid);
    expect(trigger.trigger).toEqual({ key: 'ping', name: 'Ping', version: 1, latest_version: 2 });
    expect(greet.action).toEqual({ key: 'greet', name: 'Greet', version: 1, latest_version: 2 });
    expect(greet.status).toBe('ready');

    const flowUuid: string = (await owner.api.post('/api/v1/flow').send({ name: 'new' }).expect(201)).body.data.uuid;
    await owner.api.post(`/api/v1/flow/${flowUuid}/steps`).send({ app_uid: 'versioned', trigger_key: 'ping', config: { title: 't' } }).expect(201);
    const added = (await owner.api.post(`/api/v1/flow/${flowUuid}/steps`).send({ app_uid: 'versioned', action_key: 'greet', config: { name: 'Ada' } }).expect(201)).body.data;
    expect(added).toMatchObject({ action: { version: 2, latest_version: 2 }, status: 'draft' });
    expect(added.status_message).toContain('config.first_name is required');
  });

  it('upgrading a draft step runs migrate on its config and moves it to the newest version', async () => {
    const greet = (await upgrade(draft.flowUuid, draft.greet).expect(200)).body.data;
    expect(greet).toMatchObject({ action: { key: 'greet', name: 'Greet someone', version: 2, latest_version: 2 }, config: { first_name: 'Ada', greeting: 'Hello' }, status: 'ready' });
    const trigger = (await upgrade(draft.flowUuid, draft.trigger).expect(200)).body.data;
    expect(trigger).toMatchObject({ trigger: { version: 2 }, config: { title: 'b' }, status: 'ready' });
    // Already the newest: answered as it is.
    expect((await upgrade(draft.flowUuid, draft.greet).expect(200)).body.data).toEqual(greet);
    const [row] = await sql(kit!, 'select definition_version, config from flow_steps where uuid = ?', [draft.greet]);
    expect(row).toEqual({ definition_version: 2, config: { first_name: 'Ada', greeting: 'Hello' } });
  });

  it('refuses with 422 naming each member when the migrated config does not validate, changing nothing', async () => {
    const res = await upgrade(incomplete.flowUuid, incomplete.greet).expect(422);
    expect(res.body.errors).toEqual({ 'config.first_name': ['is required'] });
    expect(res.body.message).toContain('Upgraded to version 2');
    expect((await sql(kit!, 'select definition_version, config from flow_steps where uuid = ?', [incomplete.greet]))[0]).toEqual({ definition_version: 1, config: {} });
  });

  it('refuses to upgrade a step of a live flow (409) and a step of another flow (404)', async () => {
    await upgrade(live.flowUuid, live.ids.greet).expect(409);
    await upgrade(draft.flowUuid, live.ids.greet).expect(404);
  });
});

describe('release 3 drops version 1', () => {
  beforeAll(() => boot(3), 60_000);

  it('fails the deployed step of version 1 with a message naming app, action and version', async () => {
    const before = (await executionsOf(live.flowUuid)).length;
    const [uuid] = await fire(owner.api, live.versionUuid, [{ name: 'Ada' }]);
    const execution = await finished(kit!, uuid);
    expect(execution.status).toBe('failed');
    const [record] = await stepRows(kit!, uuid);
    expect(record).toMatchObject({ step_uuid: live.ids.greet, status: 'failed', request: null });
    expect(record.error).toBe(
      'action "versioned.greet" version 1 is no longer installed (the app supports version 2): upgrade the step (POST /api/v1/flow/{uuid}/steps/{step}/upgrade) and redeploy the flow',
    );
    expect(execution.error).toContain('Step 2 (versioned.greet) failed: action "versioned.greet" version 1 is no longer installed');
    // The live trigger's version 1 is gone too: its pings start nothing (and say why in the log).
    await ping({ label: 'go', title: 'go', name: 'Ada' });
    expect(await executionsOf(live.flowUuid)).toHaveLength(before + 1);
    expect(kit!.logs.some((line) => String(line.message).includes('the app no longer has its version') && line.version === 1)).toBe(true);
  });

  it('shows such steps as drafts; undeploy, upgrade and deploy again runs the newest version', async () => {
    const [trigger, greet] = await steps(owner.api, live.flowUuid);
    expect(greet).toMatchObject({ status: 'draft', action: { version: 1, latest_version: 2 } });
    expect(greet.status_message).toContain('action "versioned.greet" version 1 is no longer installed');
    expect(trigger.status).toBe('draft');

    await undeployFlow(owner, live.flowUuid);
    const refused = await owner.api.post(`/api/v1/flow/${live.flowUuid}/deploy`).expect(422);
    expect(Object.keys(refused.body.errors).sort()).toEqual(['steps.1', 'steps.2']);
    expect(refused.body.errors['steps.2'][0]).toContain('version 1 is no longer installed');

    // References move with the config: {{step1.name}} is now the value of first_name.
    expect((await upgrade(live.flowUuid, live.ids.greet).expect(200)).body.data.config).toEqual({ first_name: '{{step1.name}}', greeting: 'Hello' });
    await upgrade(live.flowUuid, live.ids.trigger).expect(200);
    await owner.api.post(`/api/v1/flow/${live.flowUuid}/deploy`).expect(200);

    const before = (await executionsOf(live.flowUuid)).length;
    await ping({ title: 'go', name: 'Bo' });
    const executions = await executionsOf(live.flowUuid);
    expect(executions).toHaveLength(before + 1);
    const latest = executions[executions.length - 1].uuid;
    expect(await finished(kit!, latest)).toMatchObject({ status: 'succeeded' });
    expect((await stepRows(kit!, latest))[0].response).toEqual({ text: 'Hello, Bo', ran: 2 });
  });
});
