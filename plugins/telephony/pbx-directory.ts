import { createServiceRef, type OrmService, type TenantService } from '../../core';
import { PbxExtensionConnector } from './entities';

/** A PBX extension as a call is handed to it: the connector's registrar, reached as SIP. */
export interface PbxExtension {
  connectorUuid: string;
  name: string;
  /** `pbx.username_extension`: the SIP user the extension registers as. */
  username: string;
  registrarServer: string;
  port: number;
  transport: 'udp' | 'tcp' | 'tls';
  /** `sip:{username}@{registrar}:{port};transport={transport}`, what a telephony driver dials. */
  sipUri: string;
}

/** The telephony plugin's read API for other plugins (calls transfers to `destination_type: extension`), always for the current tenant. */
export interface PbxDirectory {
  /**
   * The connector of the current tenant whose `pbx.username_extension` is `extension`; null when
   * there is none. Its `status` says whether an agent registers as that extension, not whether
   * the PBX has it: an inactive one is found too, after any active one.
   */
  extension(extension: string): Promise<PbxExtension | null>;
}

export const pbxDirectoryRef = createServiceRef<PbxDirectory>('telephony.pbx-directory');

export function createPbxDirectory(orm: OrmService, tenants: TenantService): PbxDirectory {
  return {
    async extension(extension) {
      const wanted = extension.trim();
      if (wanted === '') return null;
      const tenant = tenants.require();
      // Two connectors may name one extension (two PBXs): an active one first, then the oldest, the same every time.
      const row = await orm.em
        .fork()
        .findOne(PbxExtensionConnector, { tenantUuid: tenant.uuid, usernameExtension: wanted }, { orderBy: { status: 'asc', createdAt: 'asc', uuid: 'asc' } });
      if (!row) return null;
      return {
        connectorUuid: row.uuid,
        name: row.name,
        username: row.usernameExtension,
        registrarServer: row.registrarServer,
        port: row.port,
        transport: row.connectionType,
        sipUri: `sip:${row.usernameExtension.replace(/#/g, '%23')}@${row.registrarServer}:${row.port};transport=${row.connectionType}`,
      };
    },
  };
}
