import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid } from '../../../../core';
import { runInContext } from '../../../../core/context/request-context';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { FlowCatalog } from '../../../../plugins/flows/app/flow-catalog';
import { connectionCredentials } from '../../../../plugins/flows/connections/connection-secret';
import { runAction, type StepRunInput, type StepRunResult } from '../../../../plugins/flows/engine/run-action';
import { FlowConnection } from '../../../../plugins/flows/entities';
import type { FlowsRuntime } from '../../../../plugins/flows/flows-runtime';
import type { OutputOf } from '../../../../plugins/flows/model/references';
import { AGENTS, FLOWS, PROBE, TRANSPORT, sql } from './engine-helpers';
import { probeApp, probeConnectApp } from './fixtures/flow-probe/probe-apps';

/** runAction on its own, as the engine and the builder's step test call it, against a real kernel's services. */
let kit: TestKernel;
let runtime: FlowsRuntime;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], config: TRANSPORT });
  // runAction reads only the catalog and these services of the flows runtime.
  runtime = { catalog: new FlowCatalog([probeApp, probeConnectApp]), secrets: kit.kernel.secrets, egress: kit.kernel.egress, logger: kit.kernel.logger } as Partial<FlowsRuntime> as FlowsRuntime;
});
afterAll(() => kit?.stop());

const TRIGGER = newUuid();
const EARLIER = newUuid();
const outputs: Record<string, unknown> = {
  [TRIGGER]: { n: 3, user: { name: 'Ada', tags: ['a', 'b'] }, flag: false, nothing: null },
  [EARLIER]: { items: [{ id: 'x1' }, { id: 'x2' }] },
};
const outputOf: OutputOf = (uuid) => (uuid in outputs ? { found: true, value: outputs[uuid] } : { found: false, value: undefined });

function step(actionKey: string, config: Record<string, unknown>, extra: Partial<StepRunInput> = {}): StepRunInput {
  return {
    flowUuid: newUuid(),
    stepUuid: newUuid(),
    versionUuid: newUuid(),
    executionUuid: newUuid(),
    appUid: 'probe',
    actionKey,
    actionVersion: 1,
    agentUuid: null,
    appConnectionUuid: null,
    config,
    position: 3,
    ...extra,
  };
}

/** Runs the step as the tenant's work, in a transaction of its own that commits. */
function run(input: StepRunInput): Promise<StepRunResult> {
  return runInContext({ tenant: kit.tenant }, () => kit.kernel.orm.em.fork().transactional((em: EntityManager) => runAction(runtime, em, kit.tenant, input, outputOf)));
}

const ref = (uuid: string, path: string) => `{{#${uuid}${path}}}`;

describe('runAction renders the stored config', () => {
  it('gives a reference that is the whole string the referenced value with its own type', async () => {
    const result = await run(
      step('echo', {
        value: { n: ref(TRIGGER, '.n'), user: ref(TRIGGER, '.user'), flag: ref(TRIGGER, '.flag'), id: ref(EARLIER, '.items[1].id'), list: [ref(TRIGGER, '.user.tags')] },
      }),
    );
    expect(result).toMatchObject({ status: 'succeeded', error: null, branch: null, resumeAt: null });
    const rendered = { n: 3, user: { name: 'Ada', tags: ['a', 'b'] }, flag: false, id: 'x2', list: [['a', 'b']] };
    expect(result.request).toEqual({ value: rendered });
    expect(result.response).toEqual({ value: rendered });
  });

  it('interpolates references inside longer text, objects as JSON', async () => {
    const result = await run(step('echo', { value: `Hi ${ref(TRIGGER, '.user.name')}, n=${ref(TRIGGER, '.n')}, tags=${ref(TRIGGER, '.user.tags')}` }));
    expect(result.request).toEqual({ value: 'Hi Ada, n=3, tags=["a","b"]' });
  });

  it('renders what is missing as null alone and as empty text inside text', async () => {
    const result = await run(
      step('echo', { value: { gone: ref(TRIGGER, '.nope'), notRun: ref(newUuid(), '.x'), inText: `[${ref(TRIGGER, '.nope.deeper')}]`, nullValue: ref(TRIGGER, '.nothing') } }),
    );
    expect(result.request).toEqual({ value: { gone: null, notRun: null, inText: '[]', nullValue: null } });
  });

  it('never evaluates a user string: expression-looking text stays text', async () => {
    const text = '{{ process.exit(1) }} ${1+1} {{step1.constructor}}';
    const result = await run(step('echo', { value: text }));
    expect(result.response).toEqual({ value: text });
  });
});

describe('runAction validates the rendered input at run time', () => {
  it('fails the step naming each member that does not fit, with the input it rendered', async () => {
    const result = await run(step('typed', { count: ref(TRIGGER, '.user.name'), extra: 1 }));
    expect(result).toMatchObject({ status: 'failed', response: null, request: { count: 'Ada', extra: 1 } });
    expect(result.error).toBe('Invalid input: config.label is required; config.extra is not a known member; config.count must be integer');
  });

  it('runs the step once the rendered values fit', async () => {
    const result = await run(step('typed', { count: ref(TRIGGER, '.n'), label: ref(EARLIER, '.items[0].id') }));
    expect(result).toMatchObject({ status: 'succeeded', response: { count: 3, label: 'x1' } });
  });
});

describe('runAction gives actions their context', () => {
  it('passes the tenant, step, agent and an idempotency key made of the execution and the step', async () => {
    const agentUuid = newUuid();
    const input = step('context', {}, { agentUuid });
    const result = await run(input);
    expect(result.response).toEqual({
      tenant: kit.tenant.slug,
      agent_uuid: agentUuid,
      step: { flowUuid: input.flowUuid, stepUuid: input.stepUuid, versionUuid: input.versionUuid },
      execution_uuid: input.executionUuid,
      idempotency_key: `${input.executionUuid}:${input.stepUuid}`,
      connection: null,
    });
    expect((await run(input)).response).toMatchObject({ idempotency_key: `${input.executionUuid}:${input.stepUuid}` });
  });

  it('gives each test run (no execution) a key of its own, so a real call is made every time', async () => {
    const input = step('context', {}, { executionUuid: null, versionUuid: null });
    const first = (await run(input)).response as { idempotency_key: string };
    const second = (await run(input)).response as { idempotency_key: string };
    expect(first.idempotency_key).toMatch(new RegExp(`^test:${input.stepUuid}:`));
    expect(second.idempotency_key).not.toBe(first.idempotency_key);
  });

  it('opens the step’s connection with its credentials decrypted', async () => {
    const em = kit.kernel.orm.em.fork();
    const connection = em.create(FlowConnection, {
      tenantUuid: kit.tenant.uuid,
      appUid: 'probe_connect',
      label: 'Main account',
      credentials: kit.kernel.secrets.encrypt(JSON.stringify({ api_key: 'k-1234' }), connectionCredentials.context(kit.tenant.uuid)),
    });
    await em.flush();
    const result = await run(step('whoami', {}, { appUid: 'probe_connect', appConnectionUuid: connection.uuid }));
    expect(result).toMatchObject({ status: 'succeeded', response: { label: 'Main account', api_key: 'k-1234' } });
  });

  it('fails the step when its connection is gone or belongs to another tenant', async () => {
    const other = await kit.createTenant();
    const em = kit.kernel.orm.em.fork();
    const foreign = em.create(FlowConnection, {
      tenantUuid: other.tenant.uuid,
      appUid: 'probe_connect',
      label: 'Theirs',
      credentials: kit.kernel.secrets.encrypt('{"api_key":"x"}', connectionCredentials.context(other.tenant.uuid)),
    });
    await em.flush();
    for (const uuid of [newUuid(), foreign.uuid]) {
      const result = await run(step('whoami', {}, { appUid: 'probe_connect', appConnectionUuid: uuid }));
      expect(result).toMatchObject({ status: 'failed', error: `App connection ${uuid} no longer exists` });
    }
  });
});

describe('runAction reports what the action decided', () => {
  it('returns the branch a branching action chose', async () => {
    expect(await run(step('choose', { branch: 'false' }))).toMatchObject({ status: 'succeeded', branch: 'false', response: { chose: 'false' } });
  });

  it('fails a branching action that names a branch it does not have', async () => {
    const result = await run(step('choose', { branch: 'maybe' }));
    expect(result).toMatchObject({ status: 'failed', branch: null, error: '"maybe" is not a branch of probe.choose (true, false)' });
  });

  it('returns `waiting` and the time to resume at when the action pauses, its output as JSON', async () => {
    const before = Date.now();
    const result = await run(step('wait', { ms: 60_000 }));
    expect(result.status).toBe('waiting');
    expect(result.resumeAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(result.response).toEqual({ resume_at: result.resumeAt!.toISOString() });
  });
});

describe('runAction never throws for a step’s failure', () => {
  it('fails an unknown app or action with a message saying which', async () => {
    expect(await run(step('teleport', {}))).toMatchObject({ status: 'failed', request: null, error: 'App "probe" has no action "teleport"' });
    expect(await run(step('echo', {}, { appUid: 'gone_app' }))).toMatchObject({ status: 'failed', request: null, error: 'App "gone_app" is not installed' });
  });

  it('fails with the message of what the action threw, and measures the run', async () => {
    const result = await run(step('fail', { message: 'upstream 503' }));
    expect(result).toMatchObject({ status: 'failed', error: 'upstream 503', response: null, request: { message: 'upstream 503' } });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('rolls back what an impure action wrote before it failed, and keeps what it wrote when it succeeded', async () => {
    const label = `w-${newUuid()}`;
    expect(await run(step('write', { label: `${label}-failed`, then_fail: true }))).toMatchObject({ status: 'failed', error: 'failed after writing' });
    expect(await run(step('write', { label: `${label}-ok` }))).toMatchObject({ status: 'succeeded', response: { written: `${label}-ok` } });
    const rows = await sql(kit, 'select label from probe_writes where label like ?', [`${label}%`]);
    expect(rows.map((row) => row.label)).toEqual([`${label}-ok`]);
  });
});
