import type { EntityManager } from '@mikro-orm/postgresql';
import { HttpError } from '../../../core';
import type { RoutedAgentChannel } from '../../agents';
import type { CallInstruction, IncomingCall } from '../driver';
import { Call } from '../entities';
import { answered } from './call-events';
import type { CallDeps } from './deps';
import { publishStatus } from './transitions';

const REFUSE: CallInstruction[] = [{ type: 'hangup' }];

/** The caller as a contact: found or made by their number; a withheld or unreadable number makes none. */
async function callerContact(deps: CallDeps, from: string): Promise<string | null> {
  try {
    return (await deps.contacts.findOrCreate({ phone_number: from }, 'from')).contact.uuid;
  } catch (error) {
    if (error instanceof HttpError && error.status < 500) return null;
    throw error;
  }
}

/**
 * A call to one of the account's numbers, reaching the hook of a `phone` channel: it
 * belongs to the agent of the tenant owning the called number (with `capabilities.call`),
 * else to the channel's own agent. Recorded with its conversation, then answered as an
 * outbound call is once picked up. An inactive agent's call is hung up. A provider's
 * retry of the same call (its id) is answered by listening, not by a second call.
 */
export async function incomingCall(deps: CallDeps, em: EntityManager, channel: RoutedAgentChannel, connectionUuid: string, provider: string, incoming: IncomingCall, origin: string): Promise<{ callUuid: string | null; instructions: CallInstruction[] }> {
  const agentUuid = (await deps.agentChannels.callOwner(em, incoming.to)) ?? channel.agent_uuid;
  const agent = await deps.agents.getWithoutSlots(agentUuid);
  if (!agent || agent.status !== 'active') return { callUuid: null, instructions: REFUSE };
  const contactUuid = await callerContact(deps, incoming.from);
  const created = await em.fork().transactional(async (tx) => {
    const existing = await tx.findOne(Call, { connectionUuid, externalId: incoming.externalId });
    if (existing) return null;
    const conversation = await deps.conversations.open(tx, { agentUuid, contactUuid, channel: 'voice', channelLabel: incoming.to });
    const call = tx.create(Call, {
      conversationUuid: conversation.uuid,
      agentUuid,
      contactUuid,
      channelUuid: channel.channel_uuid,
      connectionUuid,
      provider,
      direction: 'inbound',
      from: incoming.from,
      to: incoming.to,
      status: 'ringing',
      externalId: incoming.externalId,
      callbackOrigin: origin,
    });
    await tx.flush();
    await publishStatus(deps, call);
    return call.uuid;
  });
  if (!created) {
    const again = await em.fork().findOne(Call, { connectionUuid, externalId: incoming.externalId });
    if (!again || again.status === 'ended') return { callUuid: null, instructions: REFUSE };
    return { callUuid: again.uuid, instructions: [{ type: 'listen', timeoutSeconds: 10, language: 'en-US' }] };
  }
  return { callUuid: created, instructions: await answered(deps, { uuid: created, agentUuid }, 'human') };
}
