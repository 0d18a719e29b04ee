import type { EntityManager } from '@mikro-orm/postgresql';
import { Value } from '@sinclair/typebox/value';
import { findByUuid, type FieldErrors, type SecretsService } from '../../../core';
import type { ChannelConnectionValue, ChannelDriver } from '../driver';
import { ChannelConnection } from '../entities';
import { channelCredentials } from './connection-secret';

/** What every route shows of a connection: never its credentials, sealed or not. */
export const connectionJson = (row: ChannelConnection) => ({
  uuid: row.uuid,
  provider: row.provider,
  label: row.label,
  config: row.config,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** Credentials checked against the driver's schema; each problem named at `credentials.<path>`. */
export function credentialErrors(driver: ChannelDriver, credentials: unknown): FieldErrors {
  const errors: FieldErrors = {};
  for (const error of Value.Errors(driver.credentials, credentials)) {
    const path = ['credentials', ...error.path.split('/').filter(Boolean)].join('.');
    (errors[path] ??= []).push(error.message);
  }
  return errors;
}

export function sealCredentials(secrets: SecretsService, tenantUuid: string, credentials: unknown): string {
  return secrets.encrypt(JSON.stringify(credentials), channelCredentials.context(tenantUuid));
}

/** The connection with its credentials opened, for a driver's call only: never for a response or a log line. */
export function openConnection(secrets: SecretsService, row: ChannelConnection): ChannelConnectionValue {
  const credentials = JSON.parse(secrets.decrypt(row.credentials, channelCredentials.context(row.tenantUuid))) as Record<string, unknown>;
  return { uuid: row.uuid, provider: row.provider, label: row.label, credentials };
}

/** A connection of the current tenant (em's tenant filter), or null. */
export const findConnection = (em: EntityManager, uuid: string): Promise<ChannelConnection | null> => findByUuid(em, ChannelConnection, uuid);
