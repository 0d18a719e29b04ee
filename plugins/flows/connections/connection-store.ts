import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretsService } from '../../../core';
import type { FlowConnectionValue } from '../app/flow-app';
import { FlowConnection } from '../entities';
import { ConnectionNeedsReauth } from './connection-http';
import { connectionCredentials } from './connection-secret';

/** The credentials as the `credentials` column stores them: JSON, sealed for the tenant. */
export function sealCredentials(secrets: SecretsService, tenantUuid: string, credentials: Record<string, unknown>): string {
  return secrets.encrypt(JSON.stringify(credentials), connectionCredentials.context(tenantUuid));
}

/**
 * A connection row as app code sees it, credentials decrypted: for the call about to use
 * them, never for a response. Throws ConnectionNeedsReauth for a connection whose OAuth
 * grant was refused: nothing it could send would be accepted.
 */
export function usableConnection(secrets: SecretsService, tenantUuid: string, row: FlowConnection): FlowConnectionValue {
  if (row.status === 'needs_reauth') throw new ConnectionNeedsReauth(row.statusMessage ?? `The connection "${row.label}" must be authorized again`);
  return openConnection(secrets, tenantUuid, row);
}

/** A connection row with its credentials decrypted, whatever its status. */
export function openConnection(secrets: SecretsService, tenantUuid: string, row: FlowConnection): FlowConnectionValue {
  const credentials = JSON.parse(secrets.decrypt(row.credentials, connectionCredentials.context(tenantUuid)));
  return { uuid: row.uuid, label: row.label, credentials };
}

/** A connection of the current tenant with its credentials decrypted, for the call about to use them; null when there is none. */
export async function loadConnection(em: EntityManager, secrets: SecretsService, tenantUuid: string, uuid: string): Promise<FlowConnectionValue | null> {
  const row = await em.findOne(FlowConnection, { uuid });
  return row ? usableConnection(secrets, tenantUuid, row) : null;
}
