import { defineSecretColumn } from '../../../core';

/** A channel connection's credentials, as JSON. Never returned by any route. */
export const channelCredentials = defineSecretColumn({ table: 'channel_connections', column: 'credentials', entity: 'channel_connection', field: 'credentials' });
