import type { AgentChannelCheck } from '../agents';
import type { ChannelConnections } from '../channels';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A `phone` channel's `config.connection_uuid`, when given, names a channel connection
 * of the tenant whose provider a telephony driver serves (a Twilio connection carries
 * both SMS and calls). Absent, the agent makes and takes no calls until it names one.
 */
export const phoneChannelCheck = (connections: ChannelConnections, providers: () => string[]): AgentChannelCheck => ({
  types: ['phone'],
  async check(em, channel, problems) {
    const value = channel.config.connection_uuid;
    if (value === undefined || value === null) return;
    if (typeof value !== 'string' || !UUID.test(value)) return problems.add('config.connection_uuid', 'must be the uuid of a channel connection');
    const provider = await connections.provider(em, value.toLowerCase());
    if (!provider) return problems.add('config.connection_uuid', 'is not a channel connection of this tenant (POST /api/v1/channel-connections)');
    if (!providers().includes(provider)) problems.add('config.connection_uuid', `is a \`${provider}\` connection, which no telephony driver serves (${providers().join(', ') || 'none installed'})`);
  },
});
