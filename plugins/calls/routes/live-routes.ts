import { DataEnvelope, ResourceId, SuccessEnvelope, Type, defineRoute, type AnyRoute, type TSchema } from '../../../core';
import { CallSchema } from '../call-view';
import type { CallDeps } from '../engine/deps';
import { liveAction, type LiveAction } from '../engine/live-actions';

const Params = Type.Object({ conversation_uuid: ResourceId('calls.call', 'The live call’s conversation (a call is named by it)') });

const ACTIONS: Array<{ action: LiveAction['action']; summary: string; description: string; body?: TSchema }> = [
  {
    action: 'say',
    summary: 'Make the agent say something now',
    description: 'Interrupts what the agent is saying; the line is recorded as the agent’s and the call goes back to listening. Works while muted.',
    body: Type.Object({ text: Type.String({ minLength: 1, maxLength: 4000 }) }, { additionalProperties: false }),
  },
  {
    action: 'forward',
    summary: 'Transfer the call',
    description: 'Hands the caller over to `destination` (a number in E.164 or a SIP address); the agent’s part ends (`ended_reason: transferred`).',
    body: Type.Object(
      { destination: Type.String({ pattern: '^(\\+[1-9][0-9]{6,14}|sips?:[^\\s]{3,250})$', description: 'E.164 number or `sip:` address' }) },
      { additionalProperties: false },
    ),
  },
  { action: 'hangup', summary: 'Hang up the call', description: 'Ends the call now (`ended_reason: hangup_by_agent`); a call still ringing is cancelled.' },
  {
    action: 'mute',
    summary: 'Mute the agent',
    description: 'The agent stops speaking at once and says nothing of its own while muted: the caller is still heard and recorded, and a live `say` still speaks.',
  },
  { action: 'unmute', summary: 'Unmute the agent', description: 'The agent answers the caller again from their next utterance.' },
];

/** `POST /api/v1/call/{conversation_uuid}/{say|forward|hangup|mute|unmute}`: actions on a live call. */
export function liveRoutes(deps: CallDeps): AnyRoute[] {
  return ACTIONS.map(({ action, summary, description, body }) =>
    defineRoute({
      method: 'POST',
      path: `/api/v1/call/:conversation_uuid/${action}`,
      summary,
      description: `${description} Recorded on the conversation as a \`system\` message of type \`event\`. 409 on an ended call (and, but for \`hangup\`, on one not yet answered); 502 when the provider did not carry it out.`,
      tags: ['calls'],
      params: Params,
      ...(body ? { body } : {}),
      errors: [404, 409, 502],
      response: SuccessEnvelope(CallSchema),
      transactional: false,
      handler: async ({ params, body: given }) => {
        const call = await liveAction(deps, params.conversation_uuid, { action, ...((given as object | undefined) ?? {}) } as LiveAction);
        return { success: true, message: `Call ${action} applied`, data: call };
      },
    }),
  );
}
