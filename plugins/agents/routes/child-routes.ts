import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ConflictError, DataEnvelope, NotFoundError, ResourceId, Type, defineRoute, type HttpService, type TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import type { Agent } from '../entities';
import type { AgentChild } from '../entities/agent-child';
import { FieldErrorList } from '../validation/field-errors';

/** What a sub-resource's hooks get: the locked agent, the request's EntityManager, and the 422 collector. */
export interface ChildContext {
  em: EntityManager;
  tenantUuid: string;
  agent: Agent;
  errors: FieldErrorList;
  service: AgentService;
}

type EntityClass<E> = new (...args: any[]) => E;

/**
 * One of an agent's lists, declared as data: the kernel routes to add, change and
 * remove one item are generated from it, all answering with the whole agent. The
 * hooks check what the schema cannot (adding to `context.errors`, which becomes one
 * 422) and return or apply the entity fields; nothing is written when they fail.
 */
export interface ChildList<E extends AgentChild> {
  /** Path segment under `/api/v1/agents/{uuid}/`, e.g. `guard-rules`. */
  segment: string;
  /** Path parameter of one item, e.g. `ruleUuid`. */
  param: string;
  /** Resource kind for the cross-tenant sweep, e.g. `agents.guard-rule`. */
  kind: string;
  /** The agent member this list is, e.g. `guard_rules` (named in `agent.updated`). */
  member: string;
  /** Singular noun for summaries and 404s, e.g. `guard rule`. */
  noun: string;
  entity: EntityClass<E>;
  create?: { body: TSchema; description?: string; fields(context: ChildContext, body: any): Promise<Record<string, unknown>> | Record<string, unknown> };
  update?: { body: TSchema; description?: string; apply(context: ChildContext, row: E, body: any): Promise<void> | void };
  remove?: { description?: string; check?(context: ChildContext, row: E): Promise<void> };
  /** A unique constraint of this list, said as a 409 when a write breaks it. */
  conflict?: string;
}

const upper = (noun: string) => noun[0].toUpperCase() + noun.slice(1);

export function registerChildList<E extends AgentChild>(http: HttpService, service: AgentService, agentSchema: TSchema, list: ChildList<E>): void {
  const base = `/api/v1/agents/:uuid/${list.segment}`;
  const agentParam = ResourceId('agents.agent', 'The agent');
  const itemParams = Type.Object({ uuid: agentParam, [list.param]: ResourceId(list.kind, `The ${list.noun}`) });
  const tags = ['agents'];
  const response = DataEnvelope(agentSchema);

  const begin = async (em: EntityManager, tenantUuid: string, agentUuid: string): Promise<ChildContext> => ({
    em,
    tenantUuid,
    agent: await service.lockForWrite(em, agentUuid),
    errors: new FieldErrorList(),
    service,
  });

  const findRow = async (context: ChildContext, uuid: string): Promise<E> => {
    const row = await context.em.findOne(list.entity, { uuid, agentUuid: context.agent.uuid } as any);
    if (!row) throw new NotFoundError(`${upper(list.noun)} not found`);
    return row as E;
  };

  const save = async (context: ChildContext) => {
    try {
      return await service.saved(context.em, context.agent, [list.member]);
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException && list.conflict) throw new ConflictError(list.conflict);
      throw error;
    }
  };

  if (list.create) {
    const create = list.create;
    http.route(
      defineRoute({
        method: 'POST',
        path: base,
        summary: `Add a ${list.noun}`,
        description: `${create.description ?? ''} The agent's other ${list.segment.replace('-', ' ')} are untouched.`.trim(),
        tags,
        params: Type.Object({ uuid: agentParam }),
        body: create.body,
        errors: [404, ...(list.conflict ? [409] : [])],
        response,
        handler: async ({ params, body, em, tenant }) => {
          const context = await begin(em, tenant.uuid, params.uuid);
          const fields = await create.fields(context, body);
          context.errors.throwIfAny();
          em.create(list.entity, { ...fields, agentUuid: context.agent.uuid } as any);
          return save(context);
        },
      }),
    );
  }

  if (list.update) {
    const update = list.update;
    http.route(
      defineRoute({
        method: 'PATCH',
        path: `${base}/:${list.param}`,
        summary: `Change a ${list.noun}`,
        description: `${update.description ?? 'Only the members sent change.'} Other ${list.segment.replace('-', ' ')} are untouched.`,
        tags,
        params: itemParams,
        body: update.body,
        errors: [404, ...(list.conflict ? [409] : [])],
        response,
        handler: async ({ params, body, em, tenant }) => {
          const context = await begin(em, tenant.uuid, params.uuid);
          const row = await findRow(context, (params as Record<string, string>)[list.param]);
          await update.apply(context, row, body);
          context.errors.throwIfAny();
          return save(context);
        },
      }),
    );
  }

  if (list.remove) {
    const remove = list.remove;
    http.route(
      defineRoute({
        method: 'DELETE',
        path: `${base}/:${list.param}`,
        summary: `Delete a ${list.noun}`,
        description: `${remove.description ?? ''} Permanent; other ${list.segment.replace('-', ' ')} are untouched. Answers with the agent without it.`.trim(),
        tags,
        params: itemParams,
        errors: [404, ...(remove.check ? [409] : [])],
        response,
        handler: async ({ params, em, tenant }) => {
          const context = await begin(em, tenant.uuid, params.uuid);
          const row = await findRow(context, (params as Record<string, string>)[list.param]);
          await remove.check?.(context, row);
          em.remove(row);
          return save(context);
        },
      }),
    );
  }
}

/** The highest `column` among the agent's rows (0 when none), for "append after the last". */
export async function highest(context: ChildContext, table: string, column: string): Promise<number> {
  const [row] = await context.em
    .getConnection()
    .execute(`select coalesce(max("${column}"), 0) as top from "${table}" where agent_uuid = ?`, [context.agent.uuid], 'all', context.em.getTransactionContext());
  return Number(row.top);
}
