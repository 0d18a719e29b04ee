import { DataEnvelope, ResourceId, SuccessEnvelope, Type, ValidationError, defineRoute, type AnyRoute, type TSchema } from '../../../core';
import { CallSchema } from '../call-view';
import type { CallDeps } from '../engine/deps';
import { liveAction, type LiveAction } from '../engine/live-actions';

const Params = Type.Object({ conversation_uuid: ResourceId('calls.call', 'The live call’s conversation (a call is named by it)') });

/** A number or SIP address by default; an extension with `destination_type: extension` (checked in the handler, where the pattern depends on the type). */
const ForwardBody = Type.Object(
  {
    destination: Type.String({
      minLength: 1,
      maxLength: 254,
      pattern: '^[^\\s]+$',
      description: 'A number in E.164 (`+34600111222`) or a `sip:` address; with `destination_type: extension`, the extension (a PBX extension connector’s `pbx.username_extension`)',
    }),
    destination_type: Type.Optional(
      Type.Union([Type.Literal('phone_number'), Type.Literal('extension')], { description: 'How `destination` is read (default `phone_number`, which takes SIP addresses too)', default: 'phone_number' }),
    ),
  },
  { additionalProperties: false },
);

/** What `destination_type: phone_number` takes. */
const DIALLABLE = /^(\+[1-9][0-9]{6,14}|sips?:[^\s]{3,250})$/;

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
    description:
      'Hands the caller over to `destination`: a number in E.164 or a SIP address, or with `destination_type: extension` the tenant’s PBX extension connector of ' +
      'that extension, dialled as SIP at its registrar (an extension no connector names: 422 on `destination`, nothing sent). Answered, the call ends ' +
      '`transferred` once the two hang up; busy, unanswered or failed, the agent takes the call back (`call.transfer_failed: {busy|no_answer|failed}` on the ' +
      'conversation), unmuted if it was muted, says a line and listens again. Until then the call’s other live actions answer 409.',
    body: ForwardBody,
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
        const forward = action === 'forward' ? (given as { destination: string; destination_type?: string }) : null;
        if (forward && forward.destination_type !== 'extension' && !DIALLABLE.test(forward.destination)) {
          throw ValidationError.field('destination', 'must be a number in E.164 (+ and 7 to 15 digits) or a `sip:` address; an extension needs `destination_type: extension`');
        }
        const call = await liveAction(deps, params.conversation_uuid, { action, ...((given as object | undefined) ?? {}) } as LiveAction);
        return { success: true, message: `Call ${action} applied`, data: call };
      },
    }),
  );
}
