import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretsService } from '../../../core';
import type { FlowConnectionValue } from '../app/flow-app';
import { FlowConnection } from '../entities';
import { connectionCredentials } from './connection-secret';

/** The credentials as the `credentials` column stores them: JSON, sealed for the tenant. */
export function sealCredentials(secrets: SecretsService, tenantUuid: string, credentials: Record<string, unknown>): string {
  return secrets.encrypt(JSON.stringify(credentials), connectionCredentials.context(tenantUuid));
}

/** A connection row as app code sees it, credentials decrypted: for the call about to use them, never for a response. */
export function openConnection(secrets: SecretsService, tenantUuid: string, row: FlowConnection): FlowConnectionValue {
  const credentials = JSON.parse(secrets.decrypt(row.credentials, connectionCredentials.context(tenantUuid)));
  return { uuid: row.uuid, label: row.label, credentials };
}

/** A connection of the current tenant with its credentials decrypted, for the call about to use them; null when there is none. */
export async function loadConnection(em: EntityManager, secrets: SecretsService, tenantUuid: string, uuid: string): Promise<FlowConnectionValue | null> {
  const row = await em.findOne(FlowConnection, { uuid });
  return row ? openConnection(secrets, tenantUuid, row) : null;
}
