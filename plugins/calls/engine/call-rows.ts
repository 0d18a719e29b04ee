import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import type { OrmService, TenantRef } from '../../../core';
import { Call } from '../entities';

/** A call as a provider's callback reaches it: by its uuid alone, with its tenant. */
export interface RoutedCall {
  tenant: TenantRef;
  callUuid: string;
  agentUuid: string;
  connectionUuid: string;
}

// Callbacks name no tenant: the call's uuid (unique across tenants) finds it, and a tenant that is not active has none.
const FIND =
  'select c.uuid, c.agent_uuid, c.connection_uuid, t.uuid as tenant_uuid, t.slug, t.name as tenant_name from calls c join tenants t on t.uuid = c.tenant_uuid ' +
  "where c.uuid = ? and t.status = 'active'";

export async function routeCall(orm: OrmService, callUuid: string): Promise<RoutedCall | null> {
  const [row]: Array<Record<string, string>> = await orm.em.getConnection().execute(FIND, [callUuid], 'all');
  return row ? { tenant: { uuid: row.tenant_uuid, slug: row.slug, name: row.tenant_name }, callUuid: row.uuid, agentUuid: row.agent_uuid, connectionUuid: row.connection_uuid } : null;
}

/** The call of the current tenant, locked until em's transaction ends (every change to a call takes this lock first, then its conversation's). */
export const lockCall = (em: EntityManager, callUuid: string) => em.findOne(Call, { uuid: callUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });

export const lockCallOfConversation = (em: EntityManager, conversationUuid: string) => em.findOne(Call, { conversationUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** The call of the current tenant with this provider id on this connection (an incoming call's status callback names only that). */
export const lockCallByExternalId = (em: EntityManager, connectionUuid: string, externalId: string) =>
  em.findOne(Call, { connectionUuid, externalId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
