import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { ConflictError, Type, ValidationError, createServiceRef, type FieldErrors, type OrmService, type Static, type TenantService } from '../../core';
import type { AgentJson } from './agent-reader';
import { AgentService } from './agent-service';
import { nextStatus } from './agent-status';
import { SCALAR_MEMBERS, applyAgentWrite } from './agent-write';
import { agentWriteSchema } from './schemas/agent';

/** The members other plugins may change through the writer: the scalar members of `PUT /agents/{uuid}`. */
const MEMBERS = SCALAR_MEMBERS;

/**
 * A change to an agent as another plugin asks for it: scalar members with the same
 * schema as `PUT /agents/{uuid}`, and the status the agent should be in (`active` as
 * `POST .../activate` does it, `paused` as `POST .../pause`).
 */
export const AgentChanges = Type.Object(
  {
    ...Type.Partial(Type.Pick(agentWriteSchema({}, { create: false }), MEMBERS)).properties,
    status: Type.Optional(
      Type.Unsafe<'active' | 'paused'>({
        type: 'string',
        enum: ['active', 'paused'],
        description: '`active` activates the agent (from pending or paused); `paused` pauses it (from active; a pending agent cannot be paused)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AgentChanges = Static<typeof AgentChanges>;

export interface AgentWriteResult {
  /** The agent after the write, as `GET /api/v1/agents/{uuid}` returns it. */
  agent: AgentJson;
  /** Members the write changed; empty when the agent already had every value asked for, and then nothing was written or announced. */
  changed: string[];
}

export interface AgentWriteOptions {
  /**
   * Who asks, e.g. `flow:<uuid>`: sent as the `caused-by` header of the `agent.updated`
   * message, so a consumer can recognise the changes it caused itself.
   */
  cause?: string;
}

/**
 * The agents plugin's write API for other plugins (a flow's `update_agent` step), for the
 * current tenant, in the current transaction. It goes through the same code as the
 * routes: the same checks (a 422-style ValidationError, a ConflictError for a pending
 * agent paused, a NotFoundError for an unknown agent), the row lock, and one
 * `agent.updated` event per write. A change to the values the agent already has writes
 * and announces nothing, so a flow that reacts to `agent.updated` by setting the same
 * values again ends there instead of looping.
 */
export interface AgentWriter {
  activate(agentUuid: string, options?: AgentWriteOptions): Promise<AgentWriteResult>;
  pause(agentUuid: string, options?: AgentWriteOptions): Promise<AgentWriteResult>;
  update(agentUuid: string, changes: AgentChanges, options?: AgentWriteOptions): Promise<AgentWriteResult>;
}

export const agentWriterRef = createServiceRef<AgentWriter>('agents.writer');

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateChanges = ajv.compile(AgentChanges);

const camel = (member: string) => member.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function fieldErrors(errors: ErrorObject[]): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const path = error.instancePath.split('/').slice(1);
    if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
    (out[path.join('.') || 'changes'] ??= []).push(error.keyword === 'additionalProperties' ? 'is not allowed' : (error.message ?? 'is invalid'));
  }
  return out;
}

/** The service whose `agent.updated` messages carry `caused-by`. */
function causedBy(service: AgentService, cause: string): AgentService {
  const bus = { ...service.bus, publish: (topic: string, payload: unknown, options: Parameters<AgentService['bus']['publish']>[2] = {}) => service.bus.publish(topic, payload, { ...options, headers: { ...options.headers, 'caused-by': cause } }) };
  return new AgentService(service.reader, bus, service.secrets, service.webhookEvents, service.memberChecks);
}

export function createAgentWriter(orm: OrmService, tenants: TenantService, service: AgentService): AgentWriter {
  const update: AgentWriter['update'] = async (agentUuid, changes, options = {}) => {
    if (!validateChanges(changes)) throw new ValidationError(fieldErrors(validateChanges.errors ?? []));
    const em = orm.em;
    const tenant = tenants.require();
    const agent = await service.lockForWrite(em, agentUuid);
    const transition = changes.status === undefined ? null : changes.status === 'active' ? 'activate' : 'pause';
    const status = transition && nextStatus(agent.status, transition);
    if (transition && !status) throw new ConflictError(`A ${agent.status} agent cannot be paused; activate it first`);

    const fields = agent as unknown as Record<string, unknown>;
    const differing = MEMBERS.filter((member) => changes[member] !== undefined && fields[camel(member)] !== changes[member]);
    const changed = await applyAgentWrite(em, tenant.uuid, agent, Object.fromEntries(differing.map((member) => [member, changes[member]])), false, service.memberChecks);
    if (status && status !== agent.status) {
      agent.status = status;
      changed.push('status');
    }
    if (changed.length === 0) return { agent: (await service.reader.one(em, tenant.uuid, agent.uuid))!, changed };
    const { data } = await (options.cause ? causedBy(service, options.cause) : service).saved(em, agent, changed);
    return { agent: data, changed };
  };
  return {
    update,
    activate: (agentUuid, options) => update(agentUuid, { status: 'active' }, options),
    pause: (agentUuid, options) => update(agentUuid, { status: 'paused' }, options),
  };
}
