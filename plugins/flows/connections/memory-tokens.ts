import type { Egress } from '../../../core';
import type { FlowAppAuth } from '../app/auth';
import type { FlowConnectionValue } from '../app/flow-app';
import { ConnectionNeedsReauth, type TokenKeeper } from './connection-http';
import { OAuthGrantRefused, credentialsFrom, oauthEndpoints, refreshTokens, type ConfigReader } from './oauth-client';

/**
 * A TokenKeeper that refreshes against the app's token endpoint and keeps the result
 * only in the connection value it was given: for app code run outside the engine (the
 * test kit). Concurrent refreshes of one connection share one request, as in the engine.
 */
export function memoryTokens(auth: FlowAppAuth | undefined, egress: Egress, read: ConfigReader): TokenKeeper {
  const inFlight = new Map<FlowConnectionValue, Promise<Record<string, unknown>>>();
  return {
    refresh(connection, stale) {
      if (auth?.type !== 'oauth2') return Promise.reject(new Error('only OAuth2 connections are refreshed'));
      if (connection.credentials.access_token !== stale) return Promise.resolve(connection.credentials);
      const running = inFlight.get(connection);
      if (running) return running;
      const refreshing = (async () => {
        try {
          const tokens = await refreshTokens(egress, oauthEndpoints(auth, read), String(connection.credentials.refresh_token));
          return credentialsFrom(tokens, connection.credentials);
        } catch (error) {
          if (error instanceof OAuthGrantRefused) throw new ConnectionNeedsReauth(`The connection "${connection.label}" must be authorized again: ${error.message}`);
          throw error;
        } finally {
          inFlight.delete(connection);
        }
      })();
      inFlight.set(connection, refreshing);
      return refreshing;
    },
  };
}
