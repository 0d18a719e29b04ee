import { defineSecretColumn } from '../../../core';

/** The credentials of an app connection, as JSON. Never returned by any route. */
export const connectionCredentials = defineSecretColumn({ table: 'flow_connections', column: 'credentials', entity: 'flow_connection', field: 'credentials' });
