import { ConflictError, HttpError, NotFoundError, ValidationError } from '../../../core';
import { callJson, type CallJson } from '../call-view';
import { TelephonySendError, type CallInstruction } from '../driver';
import type { Call } from '../entities';
import { voiceConfig } from './agent-line';
import { lockCallOfConversation } from './call-rows';
import type { CallDeps } from './deps';
import { openLine } from './line';
import { extensionTarget } from './transfer-target';
import { startTransfer } from './transfers';
import { endCall, markEnding } from './transitions';

/** The conference a muted call waits in, with a driver that mutes through one: one per call. */
export const muteRoom = (callUuid: string) => `switchboard-${callUuid}`;

/** `forward`: `destination_type` `phone_number` (the default: a number in E.164 or a SIP address) or `extension` (a PBX extension connector's). */
export type ForwardAction = { action: 'forward'; destination: string; destination_type?: 'phone_number' | 'extension' };
export type LiveAction = { action: 'say'; text: string } | ForwardAction | { action: 'hangup' } | { action: 'mute' } | { action: 'unmute' };

/** Where a forward dials, and how it is told on the conversation; an extension no connector of the tenant names is 422 on `destination`. */
async function forwardTarget(deps: CallDeps, action: ForwardAction): Promise<{ destination: string; description: string }> {
  if (action.destination_type !== 'extension') return { destination: action.destination, description: action.destination };
  const found = await extensionTarget(deps, action.destination);
  if (!found) throw ValidationError.field('destination', `extension ${action.destination} is not a PBX extension connector of this tenant`);
  return found;
}

/** What each action says of itself on the conversation (a `system` message of type `event`). */
const EVENT_TEXT: Record<LiveAction['action'], (action: any) => string> = {
  say: () => 'call.say',
  forward: (action: ForwardAction & { description: string }) => `call.forward ${action.description}`,
  hangup: () => 'call.hangup',
  mute: () => 'call.mute',
  unmute: () => 'call.unmute',
};

/**
 * `POST /api/v1/call/{conversation_uuid}/{action}`: checked and recorded under the call's
 * lock, then carried out through the driver with no transaction open. An ended call is
 * 409; `say`, `forward`, `mute` and `unmute` need a call in progress (409 while it rings);
 * `hangup` of a call not yet answered cancels it.
 */
export async function liveAction(deps: CallDeps, conversationUuid: string, action: LiveAction): Promise<CallJson> {
  const em = deps.orm.em.fork();
  const agentVoice = async (call: Pick<Call, 'agentUuid'>) => voiceConfig((await deps.agents.getWithoutSlots(call.agentUuid)) ?? { agent_uuid: call.agentUuid, name: '' });
  // Read before the call's lock is taken (no second connection while it is held); an unknown extension refuses the forward with nothing recorded.
  const target = action.action === 'forward' ? await forwardTarget(deps, action) : null;
  const checked = await em.transactional(async (tx) => {
    const call = await lockCallOfConversation(tx, conversationUuid);
    if (!call) throw new NotFoundError('Call not found');
    if (call.status !== 'ended' && call.endingReason === 'transferred') throw new ConflictError('The call is being transferred');
    if (call.status === 'ended' || call.endingReason) throw new ConflictError('The call has ended');
    if (action.action !== 'hangup' && call.status !== 'in_progress') throw new ConflictError(`The call is ${call.status}: \`${action.action}\` needs a call in progress`);
    const wasMuted = call.muted;
    if (action.action === 'mute' || action.action === 'unmute') call.muted = action.action === 'mute';
    if (action.action === 'hangup') markEnding(call, 'hangup_by_agent');
    // A forward waits for its dial like a routing rule's transfer: answered, the call ends `transferred`; nobody answering gives it back to the agent.
    if (action.action === 'forward') startTransfer(call, null);
    const entries = [{ sender: 'system' as const, messageType: 'event' as const, content: EVENT_TEXT[action.action]({ ...action, description: target?.description }) }];
    if (action.action === 'say') entries.push({ sender: 'agent' as const, messageType: 'text' as const, content: action.text } as never);
    await deps.conversations.recordMany(tx, call.conversationUuid, entries);
    return { uuid: call.uuid, externalId: call.externalId, connectionUuid: call.connectionUuid, callbackOrigin: call.callbackOrigin, agentUuid: call.agentUuid, muted: call.muted, wasMuted };
  });
  const voice = await agentVoice(checked);
  const listen: CallInstruction = { type: 'listen', timeoutSeconds: voice.silenceTimeoutSeconds, language: voice.language };
  let failure: string | null = null;
  try {
    // A call the provider has not placed yet has nothing to hang up there: it just ends.
    if (checked.externalId === null) {
      if (action.action !== 'hangup') throw new TelephonySendError('the provider has not placed the call yet', true);
      return await finish();
    }
    const line = await openLine(deps, em, checked);
    if (!line) throw new TelephonySendError('the call’s connection is gone', false);
    // A driver that mutes the line itself (Twilio: the call's own conference, its participant muted) keeps the call there while muted.
    const room = muteRoom(checked.uuid);
    const said: CallInstruction = { type: 'say', text: action.action === 'say' ? action.text : '', language: voice.language, voice: voice.voice };
    if (action.action === 'hangup') await line.driver.hangup(line.context, checked.externalId);
    else if (action.action === 'say' && checked.muted && line.driver.mute) await line.driver.mute(line.context, checked.externalId, { muted: true, room, before: [said] });
    else if (action.action === 'say') await line.driver.perform(line.context, checked.externalId, [said, listen]);
    else if (action.action === 'forward') await line.driver.perform(line.context, checked.externalId, [{ type: 'transfer', destination: target!.destination }]);
    else if (action.action === 'mute' && line.driver.mute) await line.driver.mute(line.context, checked.externalId, { muted: true, room });
    // Without one, muting cuts off what the agent is saying: the call goes back to listening, and the agent answers nothing until unmuted.
    else if (action.action === 'mute') await line.driver.perform(line.context, checked.externalId, [listen]);
    else if (action.action === 'unmute' && line.driver.mute) await line.driver.mute(line.context, checked.externalId, { muted: false, room, resume: [listen] });
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  return finish();

  /** Under the call's lock again: the end recorded, or on a provider's failure what was marked undone. */
  async function finish(): Promise<CallJson> {
    const result = await em.fork().transactional(async (tx) => {
      const call = (await lockCallOfConversation(tx, conversationUuid))!;
      if (failure !== null) {
        // The provider did not take it: nothing is ending after all.
        if (call.endingReason && call.status !== 'ended') call.endingReason = null;
        if (action.action === 'mute' || action.action === 'unmute') call.muted = checked.wasMuted;
        return null;
      }
      // A hangup is the end of the agent's part now; the provider's last status adds the duration. A forward ends with its dial (transfers.ts).
      if (action.action === 'hangup') await endCall(deps, tx, call, 'hangup_by_agent');
      return callJson(call);
    });
    // 502: the provider did not carry the action out (the call goes on as it was).
    if (!result) throw new HttpError(502, `The provider did not carry out \`${action.action}\`: ${failure}`);
    return result;
  }
}
