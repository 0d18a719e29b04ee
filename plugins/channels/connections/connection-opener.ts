import type { EntityManager } from '@mikro-orm/postgresql';
import { createServiceRef, type SecretsService } from '../../../core';
import type { ChannelDrivers } from '../channel-drivers';
import type { ChannelConnectionValue } from '../driver';
import { findConnection, openConnection } from './connection-store';

/**
 * Channel connections for other plugins that speak to the same providers (calls: a
 * Twilio account carries both its SMS and its voice calls, with one set of credentials).
 */
export interface ChannelConnections {
  /** Whether the current tenant has this connection (em's tenant filter); its credentials stay sealed. */
  provider(em: EntityManager, connectionUuid: string): Promise<string | null>;
  /**
   * The connection of the current tenant with its credentials opened, for a provider call
   * only (never a response or a log line), and where that provider's API is (the
   * channels plugin's TWILIO_API_BASE_URL, ...): null when the tenant has no such connection.
   */
  open(em: EntityManager, connectionUuid: string): Promise<{ connection: ChannelConnectionValue; apiBaseUrl: string } | null>;
  /** PUBLIC_BASE_URL (empty: hook URLs are built from each request), shared so both plugins sign and build URLs alike. */
  publicBaseUrl: string;
}

export const channelConnectionsRef = createServiceRef<ChannelConnections>('channels.connections');

export function createChannelConnections(secrets: SecretsService, drivers: ChannelDrivers, publicBaseUrl: string): ChannelConnections {
  return {
    async provider(em, connectionUuid) {
      return (await findConnection(em, connectionUuid))?.provider ?? null;
    },
    async open(em, connectionUuid) {
      const row = await findConnection(em, connectionUuid);
      if (!row) return null;
      const driver = drivers.get(row.provider);
      const apiBaseUrl = driver ? drivers.apiBaseUrl(driver) : '';
      return { connection: openConnection(secrets, row), apiBaseUrl };
    },
    publicBaseUrl,
  };
}
