import type { AgentChannelCheck } from '../../agents';
import { findConnection } from './connection-store';
import { isUuid } from './connection-uuid';

/**
 * What an agent channel of a messaging type says of its connection, checked when the
 * channel is written: `config.connection_uuid`, when given, names a channel connection of
 * the tenant (a connection of another tenant is as unknown as none). Absent, the channel
 * takes no messages until it names one. Whether the connection's provider carries the
 * channel's type is the hook's to refuse (a 404), since drivers are known only at run time.
 */
export const connectionCheck: AgentChannelCheck = {
  types: ['sms', 'chatapp', 'social'],
  async check(em, channel, problems) {
    const value = channel.config.connection_uuid;
    if (value === undefined || value === null) return;
    if (!isUuid(value)) return problems.add('config.connection_uuid', 'must be the uuid of a channel connection');
    if (!(await findConnection(em, value.toLowerCase()))) problems.add('config.connection_uuid', 'is not a channel connection of this tenant (POST /api/v1/channel-connections)');
  },
};
