import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ConflictError, DataEnvelope, NotFoundError, ResourceId, Type, defineRoute, type AnyRoute, type TSchema } from '../../../core';
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

/** What the generated routes of one list share: its paths, the agent lock, the row lookup and the save. */
function childKit<E extends AgentChild>(service: AgentService, agentSchema: TSchema, list: ChildList<E>) {
  const agentParam = ResourceId('agents.agent', 'The agent');
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
  return {
    list,
    base: `/api/v1/agents/:uuid/${list.segment}`,
    agentParams: Type.Object({ uuid: agentParam }),
    itemParams: Type.Object({ uuid: agentParam, [list.param]: ResourceId(list.kind, `The ${list.noun}`) }),
    others: list.segment.replace('-', ' '),
    response: DataEnvelope(agentSchema),
    begin,
    findRow,
    save,
  };
}

type ChildKit<E extends AgentChild> = ReturnType<typeof childKit<E>>;
const tags = ['agents'];

/** The routes of one of an agent's lists: add, change and delete an item, as the list declares them. */
export function childListRoutes<E extends AgentChild>(service: AgentService, agentSchema: TSchema, list: ChildList<E>): AnyRoute[] {
  const kit = childKit(service, agentSchema, list);
  return [
    ...(list.create ? [addChild(kit, list.create)] : []),
    ...(list.update ? [changeChild(kit, list.update)] : []),
    ...(list.remove ? [deleteChild(kit, list.remove)] : []),
  ];
}

const addChild = <E extends AgentChild>(kit: ChildKit<E>, create: NonNullable<ChildList<E>['create']>) =>
  defineRoute({
    method: 'POST',
    path: kit.base,
    summary: `Add a ${kit.list.noun}`,
    description: `${create.description ?? ''} The agent's other ${kit.others} are untouched.`.trim(),
    tags,
    params: kit.agentParams,
    body: create.body,
    errors: [404, ...(kit.list.conflict ? [409] : [])],
    response: kit.response,
    handler: async ({ params, body, em, tenant }) => {
      const context = await kit.begin(em, tenant.uuid, params.uuid);
      const fields = await create.fields(context, body);
      context.errors.throwIfAny();
      em.create(kit.list.entity, { ...fields, agentUuid: context.agent.uuid } as any);
      return kit.save(context);
    },
  });

const changeChild = <E extends AgentChild>(kit: ChildKit<E>, update: NonNullable<ChildList<E>['update']>) =>
  defineRoute({
    method: 'PATCH',
    path: `${kit.base}/:${kit.list.param}`,
    summary: `Change a ${kit.list.noun}`,
    description: `${update.description ?? 'Only the members sent change.'} Other ${kit.others} are untouched.`,
    tags,
    params: kit.itemParams,
    body: update.body,
    errors: [404, ...(kit.list.conflict ? [409] : [])],
    response: kit.response,
    handler: async ({ params, body, em, tenant }) => {
      const context = await kit.begin(em, tenant.uuid, params.uuid);
      const row = await kit.findRow(context, (params as Record<string, string>)[kit.list.param]);
      await update.apply(context, row, body);
      context.errors.throwIfAny();
      return kit.save(context);
    },
  });

const deleteChild = <E extends AgentChild>(kit: ChildKit<E>, remove: NonNullable<ChildList<E>['remove']>) =>
  defineRoute({
    method: 'DELETE',
    path: `${kit.base}/:${kit.list.param}`,
    summary: `Delete a ${kit.list.noun}`,
    description: `${remove.description ?? ''} Permanent; other ${kit.others} are untouched. Answers with the agent without it.`.trim(),
    tags,
    params: kit.itemParams,
    errors: [404, ...(remove.check ? [409] : [])],
    response: kit.response,
    handler: async ({ params, em, tenant }) => {
      const context = await kit.begin(em, tenant.uuid, params.uuid);
      const row = await kit.findRow(context, (params as Record<string, string>)[kit.list.param]);
      await remove.check?.(context, row);
      em.remove(row);
      return kit.save(context);
    },
  });

/** The highest `column` among the agent's rows (0 when none), for "append after the last". */
export async function highest(context: ChildContext, table: string, column: string): Promise<number> {
  const [row] = await context.em
    .getConnection()
    .execute(`select coalesce(max("${column}"), 0) as top from "${table}" where agent_uuid = ?`, [context.agent.uuid], 'all', context.em.getTransactionContext());
  return Number(row.top);
}
