import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretsService } from '../../../core';
import type { FlowConnectionValue } from '../app/flow-app';
import { FlowConnection } from '../entities';
import { connectionCredentials } from './connection-secret';

/** A connection of the current tenant with its credentials decrypted, for the call about to use them; null when there is none. */
export async function loadConnection(em: EntityManager, secrets: SecretsService, tenantUuid: string, uuid: string): Promise<FlowConnectionValue | null> {
  const row = await em.findOne(FlowConnection, { uuid });
  if (!row) return null;
  const credentials = JSON.parse(secrets.decrypt(row.credentials, connectionCredentials.context(tenantUuid)));
  return { uuid: row.uuid, label: row.label, credentials };
}
