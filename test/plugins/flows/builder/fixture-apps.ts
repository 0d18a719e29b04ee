import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Type, definePlugin } from '../../../../core';
import { Auth, defineAction, defineFlowApp, defineTrigger, flowApps } from '../../../../plugins/flows';

/**
 * Test-only flow apps for the builder tests, one per kind of rule they exercise, so the
 * builder is tested on its own and not through the built-in apps.
 */

/** What the `kit.manual` trigger's lifecycle hooks saw, in order: proof they ran, with what, in the deploying transaction. */
export const lifecycleCalls: Array<{ hook: 'deploy' | 'undeploy'; flowUuid: string; stepUuid: string; versionUuid: string; input: unknown; tenant: string; versionRows: number }> = [];

/** Active version rows the hook's transaction sees: 1 when it runs inside the deploying transaction. */
const activeVersionRows = async (em: EntityManager, versionUuid: string) =>
  (await em.getConnection().execute('select 1 from flow_versions where uuid = ? and active', [versionUuid], 'all', em.getTransactionContext())).length;

const manual = defineTrigger({
  key: 'manual',
  name: 'Manual start',
  description: 'Started by hand',
  input: Type.Object({ label: Type.Optional(Type.String()), refuse_deploy: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  outputSample: { order: { id: 42, total: 9.5 } },
  async onDeploy({ input, step, tenant, em }) {
    if (input.refuse_deploy) throw new Error('the trigger refused to start');
    lifecycleCalls.push({ hook: 'deploy', ...step, input, tenant: tenant.slug, versionRows: await activeVersionRows(em, step.versionUuid) });
  },
  async onUndeploy({ input, step, tenant, em }) {
    lifecycleCalls.push({ hook: 'undeploy', ...step, input, tenant: tenant.slug, versionRows: await activeVersionRows(em, step.versionUuid) });
  },
});

const hooked = defineTrigger({
  key: 'hooked',
  name: 'Hooked',
  description: 'Started through its own URL',
  input: Type.Object({ hook_url: Type.String({ format: 'uri' }), note: Type.Optional(Type.String()) }, { additionalProperties: false }),
  outputSample: { body: {} },
  hook: { config: (hookUrl) => ({ hook_url: hookUrl }) },
});

const echo = defineAction({
  key: 'echo',
  name: 'Echo',
  description: 'Returns its message',
  input: Type.Object({ message: Type.String({ minLength: 1 }), count: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
  outputSample: { echoed: 'hello' },
  pure: true,
  run: ({ input }) => ({ echoed: input.message, count: input.count ?? null }),
});

const check = defineAction({
  key: 'check',
  name: 'Check',
  description: 'Branches on whether value is "yes"',
  input: Type.Object({ value: Type.String() }, { additionalProperties: false }),
  outputSample: { matched: true },
  branches: ['true', 'false'],
  pure: true,
  run: ({ input, branch }) => {
    branch(input.value === 'yes' ? 'true' : 'false');
    return { matched: input.value === 'yes' };
  },
});

const wait = defineAction({
  key: 'wait',
  name: 'Wait',
  description: 'Pauses for some seconds',
  input: Type.Object({ seconds: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  outputSample: { until: '2030-01-01T00:00:00.000Z' },
  pure: true,
  run: ({ input, pause }) => {
    const until = new Date(Date.now() + input.seconds * 1000);
    pause({ until });
    return { until: until.toISOString() };
  },
});

const fail = defineAction({
  key: 'fail',
  name: 'Fail',
  description: 'Always throws',
  input: Type.Object({}, { additionalProperties: false }),
  outputSample: {},
  run: () => {
    throw new Error('the fixture failed on purpose');
  },
});

/** A builtin app with triggers and actions, one of them branching. */
export const kitApp = defineFlowApp({
  uid: 'kit',
  name: 'Kit',
  description: 'Builder test app',
  icon: 'https://kit.test/icon.png',
  category: 'builtin',
  triggers: [manual, hooked],
  actions: [echo, check, wait, fail],
});

/** A connect app: steps need a connection of this app (rule 4). No triggers. */
export const crmApp = defineFlowApp({
  uid: 'crm',
  name: 'CRM',
  description: 'Builder test connect app',
  icon: 'https://crm.test/icon.png',
  category: 'connect',
  auth: Auth.custom(Type.Object({ api_key: Type.String({ minLength: 4 }) }, { additionalProperties: false })),
  actions: [
    defineAction({
      key: 'create_contact',
      name: 'Create contact',
      description: 'Creates a contact',
      input: Type.Object({ email: Type.String() }, { additionalProperties: false }),
      outputSample: { id: 'c_1' },
      run: ({ input, connection }) => ({ id: 'c_1', email: input.email, connection_label: connection?.label ?? null }),
    }),
  ],
});

/** An app whose actions act on an agent (rule 6); its trigger takes an optional agent. */
export const staffApp = defineFlowApp({
  uid: 'staff',
  name: 'Staff',
  description: 'Builder test agent app',
  icon: 'https://staff.test/icon.png',
  category: 'builtin',
  requiresAgent: true,
  triggers: [defineTrigger({ key: 'agent_changed', name: 'Agent changed', description: 'An agent changed', input: Type.Object({}), outputSample: { agent_uuid: null } })],
  actions: [
    defineAction({
      key: 'notify',
      name: 'Notify agent',
      description: 'Tells an agent',
      input: Type.Object({ text: Type.String() }, { additionalProperties: false }),
      outputSample: { agent_uuid: null },
      run: ({ agentUuid }) => ({ agent_uuid: agentUuid }),
    }),
  ],
});

/** A trigger-only app (supports_action is false). */
export const clockApp = defineFlowApp({
  uid: 'clock',
  name: 'Clock',
  description: 'Builder test trigger-only app',
  icon: 'https://clock.test/icon.png',
  category: 'builtin',
  triggers: [defineTrigger({ key: 'tick', name: 'Tick', description: 'Ticks', input: Type.Object({}), outputSample: { at: null } })],
});

export const builderFixtures = definePlugin({
  id: 'flows-builder-fixtures',
  dependsOn: ['flows'],
  contributes: [kitApp, crmApp, staffApp, clockApp].map((app) => flowApps.add(app)),
});

export const AGENTS = path.resolve(__dirname, '../../../../plugins/agents');
export const FLOWS = path.resolve(__dirname, '../../../../plugins/flows');
/** What every builder test boots: the agents and flows plugins and these apps. */
export const BUILDER_PLUGINS = [AGENTS, FLOWS, builderFixtures];
