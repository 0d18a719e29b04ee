import type { EntityManager } from '@mikro-orm/postgresql';
import type { Egress, Logger, OrmService, SecretsService, TenantService } from '../../../core';
import type { FlowConnectionValue } from '../app/flow-app';
import type { FlowCatalog } from '../app/flow-catalog';
import { FlowConnection } from '../entities';
import { ConnectionNeedsReauth, type TokenKeeper } from './connection-http';
import { openConnection, sealCredentials } from './connection-store';
import { OAuthGrantRefused, credentialsFrom, oauthEndpoints, refreshTokens, type ConfigReader } from './oauth-client';

export interface ConnectionTokensDeps {
  orm: OrmService;
  secrets: SecretsService;
  egress: Egress;
  tenants: TenantService;
  catalog: FlowCatalog;
  logger: Logger;
  appConfig(appUid: string): ConfigReader;
}

/** What a user sees on a connection whose grant is gone, and what its steps fail with. */
export const reauthMessage = (label: string, reason: string) => `The connection "${label}" must be authorized again (POST /api/v1/flow/connections/oauth/start): ${reason}`;

/**
 * The engine's TokenKeeper: an OAuth connection's tokens, sealed in `flow_connections`.
 *
 * A refresh holds no transaction while the authorization server answers: it reads the
 * row, asks for new tokens, then writes them only if the row still holds the sealed
 * credentials it read (compare and set). Concurrent refreshes of one connection in this
 * process share one request; one in another process that lost the race finds the
 * newer token on its re-read and uses it, so a refresh token that rotates is spent once
 * per process at most. A refused refresh marks the connection `needs_reauth`.
 */
export class ConnectionTokens implements TokenKeeper {
  readonly #inFlight = new Map<string, Promise<Record<string, unknown>>>();

  constructor(private readonly deps: ConnectionTokensDeps) {}

  refresh(connection: FlowConnectionValue, stale: string): Promise<Record<string, unknown>> {
    const tenant = this.deps.tenants.require();
    const key = `${tenant.uuid}:${connection.uuid}`;
    const running = this.#inFlight.get(key);
    if (running) return running;
    const refreshing = this.#refresh(tenant.uuid, connection, stale).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, refreshing);
    return refreshing;
  }

  async #refresh(tenantUuid: string, connection: FlowConnectionValue, stale: string): Promise<Record<string, unknown>> {
    const em = this.deps.orm.em.fork() as EntityManager;
    const row = await em.findOne(FlowConnection, { uuid: connection.uuid, tenantUuid });
    if (!row) throw new Error(`App connection ${connection.uuid} no longer exists`);
    if (row.status === 'needs_reauth') throw new ConnectionNeedsReauth(row.statusMessage ?? reauthMessage(row.label, 'its grant was refused'));
    const current = openConnection(this.deps.secrets, tenantUuid, row).credentials;
    // Refreshed already (by another process, or before this call read its copy): use that.
    if (current.access_token !== stale) return current;
    const auth = this.deps.catalog.app(row.appUid)?.auth;
    if (auth?.type !== 'oauth2') throw new Error(`the app "${row.appUid}" does not use OAuth2`);
    if (typeof current.refresh_token !== 'string') throw new ConnectionNeedsReauth(reauthMessage(row.label, 'the authorization server gave no refresh token'));

    let fresh: Record<string, unknown>;
    try {
      fresh = credentialsFrom(await refreshTokens(this.deps.egress, oauthEndpoints(auth, this.deps.appConfig(row.appUid)), current.refresh_token), current);
    } catch (error) {
      if (!(error instanceof OAuthGrantRefused)) throw error;
      const message = reauthMessage(row.label, error.message);
      await em.nativeUpdate(FlowConnection, { uuid: row.uuid, tenantUuid, credentials: row.credentials }, { status: 'needs_reauth', statusMessage: message });
      this.deps.logger.warn('OAuth refresh refused: connection needs authorizing again', { connection_uuid: row.uuid, flow_app: row.appUid });
      throw new ConnectionNeedsReauth(message);
    }
    const written = await em.nativeUpdate(
      FlowConnection,
      { uuid: row.uuid, tenantUuid, credentials: row.credentials },
      { credentials: sealCredentials(this.deps.secrets, tenantUuid, fresh), status: 'connected', statusMessage: null, updatedAt: new Date() },
    );
    if (written === 1) return fresh;
    // Another process wrote first: its tokens are as good, and ours may be the older grant.
    const winner = await em.fork().findOne(FlowConnection, { uuid: row.uuid, tenantUuid });
    if (!winner) throw new Error(`App connection ${connection.uuid} no longer exists`);
    return openConnection(this.deps.secrets, tenantUuid, winner).credentials;
  }
}
