import { defineSecretColumn } from '../../core';

/** SIP passwords: sealed at rest, bound to their tenant, table and field; no route returns them. */
export const connectorPassword = defineSecretColumn({ table: 'pbx_extension_connectors', column: 'auth_password', entity: 'pbx_extension_connector', field: 'auth_password' });
export const trunkPassword = defineSecretColumn({ table: 'sip_trunk_connections', column: 'auth_password', entity: 'sip_trunk_connection', field: 'auth_password' });
