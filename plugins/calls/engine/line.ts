import type { EntityManager } from '@mikro-orm/postgresql';
import type { CallDriverContext, TelephonyDriver } from '../driver';
import type { Call } from '../entities';
import type { CallDeps } from './deps';

/** A call's driver with its context: its connection opened, its callback URLs. */
export interface Line {
  driver: TelephonyDriver;
  context: CallDriverContext;
}

export const callbackUrl = (origin: string, callUuid: string, kind: string) => `${origin}/hooks/calls/${callUuid}/${kind}`;

/** The line of a call of the current tenant; null when its connection is gone or no driver serves its provider. */
export async function openLine(deps: CallDeps, em: EntityManager, call: Pick<Call, 'uuid' | 'connectionUuid' | 'callbackOrigin'>): Promise<Line | null> {
  const opened = await deps.connections.open(em, call.connectionUuid);
  const driver = opened ? deps.drivers.get(opened.connection.provider) : undefined;
  if (!opened || !driver) return null;
  return {
    driver,
    context: {
      connection: { uuid: opened.connection.uuid, provider: opened.connection.provider, credentials: opened.connection.credentials },
      egress: deps.egress,
      apiBaseUrl: opened.apiBaseUrl,
      logger: deps.logger,
      callbackUrl: (kind) => callbackUrl(call.callbackOrigin, call.uuid, kind),
    },
  };
}
