import { Type, type BusMessage } from '../../core';
import { AGENT_TOPICS, AgentChanges, agentWriterRef, type AgentChangedEvent } from '../agents';
import { defineAction, defineFlowApp, defineTrigger, flowCause } from '../flows';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2c7a7b" stroke-width="2"><rect x="4" y="8" width="16" height="12" rx="2"/><path d="M12 8V4M9 13h.01M15 13h.01M9 17h6"/></svg>',
  ).toString('base64');

/** The services the app's code uses. The writer works in the current tenant and transaction, whichever step that is. */
const agentsDeps = { writer: agentWriterRef };

const LOOPS =
  'A flow is never started by a change its own `update_agent` step made, and `update_agent` writes and announces nothing when the agent already has ' +
  'the values asked for, so "when the agent is updated, update it" does not loop. Two flows that keep undoing each other’s changes still would: each turn is an execution in their history; undeploy one.';

const updateAgent = defineAction({
  deps: agentsDeps,
  key: 'update_agent',
  name: 'Update agent',
  description:
    'Changes the step’s agent (`agent_uuid`): its `status` (`active` activates it, `paused` pauses it; a pending agent cannot be paused) and any of its ' +
    'scalar members, with the same rules as `PUT /api/v1/agents/{uuid}`. One change, one `agent.updated` event. The output summarises the agent ' +
    `afterwards, with \`changed\`: the members that changed (empty when nothing did). ${LOOPS}`,
  input: Type.Object(AgentChanges.properties, { additionalProperties: false, minProperties: 1 }),
  outputSample: {
    agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa',
    name: 'Reception',
    status: 'paused',
    language: 'en-US',
    timezone: 'Europe/Madrid',
    updated_at: '2025-01-01T09:00:00.000Z',
    changed: ['status'],
  },
  async run({ input, agentUuid, step, deps }) {
    if (!agentUuid) throw new Error('update_agent needs the step’s agent_uuid');
    const { agent, changed } = await deps.writer.update(agentUuid, input, { cause: flowCause(step.flowUuid) });
    const { agent_uuid, name, status, language, timezone, updated_at } = agent;
    return { agent_uuid, name, status, language, timezone, updated_at, changed };
  },
});

const agentUpdated = defineTrigger({
  key: 'agent_updated',
  name: 'Agent updated',
  description:
    'Starts the flow when an agent changes (its members, settings, lists or status): the step’s agent when it has an `agent_uuid`, any agent of the tenant otherwise. ' +
    `The output is the \`agent.updated\` event: \`{agent_uuid, changed, agent}\`, \`agent\` as \`GET /api/v1/agents/{uuid}\` returns it. ${LOOPS}`,
  input: Type.Object(
    {
      when_changed: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          minItems: 1,
          maxItems: 50,
          uniqueItems: true,
          description: 'Only when one of these top-level members changed (e.g. `["status"]`); on every change when absent',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSample: {
    agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa',
    changed: ['status'],
    agent: { agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa', name: 'Reception', status: 'active' },
  } satisfies AgentChangedEvent,
  event: {
    topic: AGENT_TOPICS.updated,
    formerly: ['app-agents.fire-agent-updated'],
    matches: (config, message: BusMessage<AgentChangedEvent>, { agentUuid }) =>
      (!agentUuid || agentUuid === message.payload.agent_uuid) && (!config.when_changed || config.when_changed.some((member) => message.payload.changed.includes(member))),
  },
});

/**
 * The `agents` app: act on the tenant's agents and react to their changes (builtin, no
 * connection). Its actions need the step's `agent_uuid` (rule 6 of step creation).
 */
export const agentsApp = defineFlowApp({
  uid: 'agents',
  name: 'Agents',
  description: 'Update agents and react to their changes',
  icon: ICON,
  category: 'builtin',
  requiresAgent: true,
  deps: agentsDeps,
  triggers: [agentUpdated],
  actions: [updateAgent],
});
