import { ConflictError, NotFoundError, ValidationError, type FieldErrors, type TenantRef } from '../../../core';
import type { AgentJson } from '../../agents';
import { callJson, type CallJson } from '../call-view';
import { TelephonySendError } from '../driver';
import { Call } from '../entities';
import { callingNumbers, phoneChannel, voiceConfig } from './agent-line';
import type { CallDeps } from './deps';
import { lockCall } from './call-rows';
import { openLine } from './line';
import { endCall, publishStatus } from './transitions';

export interface PlaceCallInput {
  agentUuid: string;
  to: string;
  from?: string;
  contactUuid?: string;
  metadata?: Record<string, unknown>;
  /** Where the provider reaches this server (PUBLIC_BASE_URL, else the request's origin). */
  callbackOrigin: string;
}

/**
 * What keeps an agent from calling (from `from` when given), by field: `agent_uuid`
 * (not active, no active `phone` channel naming a connection, no number that takes
 * calls) and `from` (not one of those numbers). Empty when it can call.
 */
export function lineProblems(agent: AgentJson, from: string | undefined): FieldErrors {
  const problems: FieldErrors = {};
  const add = (path: string, message: string) => void (problems[path] ??= []).push(message);
  if (agent.status !== 'active') add('agent_uuid', 'the agent is not active: only an active agent makes calls');
  if (!phoneChannel(agent)) add('agent_uuid', 'the agent has no active `phone` channel naming a connection (`config.connection_uuid`)');
  const numbers = callingNumbers(agent);
  if (numbers.length === 0) add('agent_uuid', 'the agent has no active phone number that takes calls (`capabilities.call`)');
  else if (from !== undefined && !numbers.includes(from)) add('from', 'is not an active number of the agent that takes calls');
  return problems;
}

/** The agent's line for an outbound call, or a 4xx naming what is missing. */
async function lineOf(deps: CallDeps, input: PlaceCallInput) {
  const agent = await deps.agents.getWithoutSlots(input.agentUuid);
  if (!agent) throw new NotFoundError('Agent not found');
  if (agent.status !== 'active') throw new ConflictError('The agent is not active: only an active agent makes calls');
  const problems = lineProblems(agent, input.from);
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  return { agent, channel: phoneChannel(agent)!, from: input.from ?? callingNumbers(agent)[0], voice: voiceConfig(agent) };
}

async function contactOf(deps: CallDeps, input: PlaceCallInput): Promise<string> {
  if (input.contactUuid) return input.contactUuid;
  return (await deps.contacts.findOrCreate({ phone_number: input.to }, 'to')).contact.uuid;
}

/**
 * `POST /api/v1/call` and outreach's `make_call`: the conversation and the call recorded
 * (queued) in one transaction, then the provider asked to place it with none open. A
 * provider that refuses ends the call `failed` with its reason: the attempt stays on
 * record, as a call that was never answered does.
 */
export async function placeCall(deps: CallDeps, _tenant: TenantRef, input: PlaceCallInput): Promise<CallJson> {
  // A contact of another tenant is refused first, whatever else is wrong: it names nothing here.
  if (input.contactUuid && !(await deps.contacts.get([input.contactUuid])).has(input.contactUuid)) throw ValidationError.field('contact_uuid', 'is not a contact of this tenant');
  const { agent, channel, from, voice } = await lineOf(deps, input);
  const em = deps.orm.em.fork();
  const provider = await deps.connections.provider(em, channel.connectionUuid);
  if (!provider || !deps.drivers.has(provider)) throw ValidationError.field('agent_uuid', 'the connection of the agent’s `phone` channel is gone or no telephony driver serves its provider');
  const contactUuid = await contactOf(deps, input);
  const call = await em.transactional(async (tx) => {
    const conversation = await deps.conversations.open(tx, { agentUuid: agent.agent_uuid, contactUuid, channel: 'voice', channelLabel: from });
    const row = tx.create(Call, {
      conversationUuid: conversation.uuid,
      agentUuid: agent.agent_uuid,
      contactUuid,
      channelUuid: channel.uuid,
      connectionUuid: channel.connectionUuid,
      provider,
      direction: 'outbound',
      from,
      to: input.to,
      callbackOrigin: input.callbackOrigin,
      metadata: input.metadata ?? {},
    });
    await tx.flush();
    await publishStatus(deps, row);
    return row;
  });
  const line = await openLine(deps, em, call);
  try {
    if (!line) throw new TelephonySendError('the connection is gone', false);
    const { externalId } = await line.driver.placeCall(line.context, { to: call.to, from, machineDetection: true, record: voice.audioRecording });
    return await em.fork().transactional(async (tx) => {
      const row = (await lockCall(tx, call.uuid))!;
      row.externalId = externalId;
      return callJson(row);
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof TelephonySendError)) deps.logger.error('placing a call failed', { call_uuid: call.uuid, error: message });
    return em.fork().transactional(async (tx) => {
      const row = (await lockCall(tx, call.uuid))!;
      await endCall(deps, tx, row, 'failed', { error: message });
      return callJson(row);
    });
  }
}
