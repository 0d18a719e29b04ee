import { TwilioCredentials, verifyTwilioSignature } from '../../../channels';
import { TelephonySendError, defineTelephonyDriver, type CallDriverContext, type CallEvent, type ProviderCallStatus, type TransferOutcome } from '../../driver';
import { CALL_NOT_IN_PROGRESS, TwilioCallError, conferenceSid, getRecording, postCalls, postParticipant } from './rest';
import { conferenceTwiml, renderTwiml } from './twiml';

/** Twilio's `CallStatus` values, as the plugin names them. */
const STATUSES: Record<string, ProviderCallStatus> = {
  queued: 'queued',
  initiated: 'queued',
  ringing: 'ringing',
  'in-progress': 'in_progress',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
  canceled: 'canceled',
};

/** Twilio's `DialCallStatus` values (`answered` is what a dialled conference reports for `completed`). */
const DIAL_OUTCOMES: Record<string, TransferOutcome> = {
  completed: 'completed',
  answered: 'completed',
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
  canceled: 'canceled',
};

const fields = (body: unknown): Record<string, string> => (typeof body === 'object' && body !== null ? (body as Record<string, string>) : {});

const number = (value: string | undefined): number | null => (value !== undefined && value !== '' && Number.isFinite(Number(value)) ? Number(value) : null);

/** `AnsweredBy` of answering machine detection: a greeting's start or end, or a fax, is a machine. */
const answeredBy = (value: string | undefined): 'human' | 'machine' | 'unknown' =>
  value === 'human' ? 'human' : value && (value.startsWith('machine') || value === 'fax') ? 'machine' : 'unknown';

const NOT_FOUND = 20404;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sets `Muted` on the call's participant in `room`. The call joins the room a moment after
 * the update that sent it there (Twilio fetches nothing, but runs the new TwiML
 * asynchronously): the conference and the participant are looked for again for about
 * four seconds before the mute is given up as failed.
 */
async function setMuted(context: CallDriverContext<TwilioCredentials>, externalId: string, room: string, muted: boolean, attempts = 12): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (attempt > 0) await pause(Math.min(50 * 2 ** (attempt - 1), 800));
    const sid = await conferenceSid(context, room);
    if (!sid) continue;
    try {
      await postParticipant(context, sid, externalId, new URLSearchParams({ Muted: String(muted) }));
      return true;
    } catch (error) {
      // Not a participant yet (still joining): look again.
      if (error instanceof TwilioCallError && error.code === NOT_FOUND) continue;
      throw error;
    }
  }
  return false;
}

/**
 * Twilio Programmable Voice in speech mode: calls placed through the Calls REST API,
 * each turn a TwiML `<Gather input="speech">` whose `SpeechResult` comes back to the
 * listen callback, replies in `<Say>`, status callbacks for every state, answering
 * machine detection (`DetectMessageEnd`: the machine is known after its greeting,
 * so a voicemail message lands after the beep), recordings, and transfers as `<Dial>` whose
 * `action` (the `dial` callback) reports `DialCallStatus`. Credentials are those of
 * the Twilio channel connection (one account carries SMS and calls).
 */
export const twilioVoiceDriver = defineTelephonyDriver({
  provider: 'twilio',
  name: 'Twilio Programmable Voice',
  credentials: TwilioCredentials,
  async placeCall(context, call) {
    const form = new URLSearchParams({
      To: call.to,
      From: call.from,
      Url: context.callbackUrl('answer'),
      Method: 'POST',
      StatusCallback: context.callbackUrl('status'),
      StatusCallbackMethod: 'POST',
    });
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    if (call.machineDetection) form.set('MachineDetection', 'DetectMessageEnd');
    if (call.record) {
      form.set('Record', 'true');
      form.set('RecordingStatusCallback', context.callbackUrl('recording'));
      form.set('RecordingStatusCallbackEvent', 'completed');
    }
    const resource = await postCalls(context, '', form);
    const sid = resource.sid;
    if (typeof sid !== 'string' || sid === '') throw new Error('Twilio answered a created call without its sid');
    return { externalId: sid };
  },
  async perform(context, externalId, instructions) {
    await postCalls(context, `/${encodeURIComponent(externalId)}`, new URLSearchParams({ Twiml: renderTwiml(instructions, context.callbackUrl) }));
  },
  /**
   * Mute through a conference leg: speech mode has no leg for the agent (its voice is the
   * `<Say>` of the caller's own call), so muting moves the call into a conference of its own
   * (`room`) and mutes its participant with the Participants resource (`Muted=true`): no
   * `<Gather>` runs there, so the agent neither hears nor answers, and anyone joining the room
   * by name does not hear the caller until unmuted. Unmuting sets `Muted=false` and sends the
   * call back to `resume` (listening), which takes it out of the room and ends the room.
   */
  async mute(context, externalId, change) {
    const call = `/${encodeURIComponent(externalId)}`;
    if (change.muted) {
      await postCalls(context, call, new URLSearchParams({ Twiml: conferenceTwiml(change.before ?? [], change.room) }));
      if (!(await setMuted(context, externalId, change.room, true))) throw new TelephonySendError(`the call did not join its conference ${change.room} to be muted`, true);
      return;
    }
    // A call already out of its room (a deadline's line, a forward) has nothing to unmute there.
    await setMuted(context, externalId, change.room, false, 1);
    await postCalls(context, call, new URLSearchParams({ Twiml: renderTwiml(change.resume, context.callbackUrl) }));
  },
  async hangup(context, externalId) {
    // `completed` ends a call in progress; Twilio takes it for a queued or ringing one as well and cancels it.
    try {
      await postCalls(context, `/${encodeURIComponent(externalId)}`, new URLSearchParams({ Status: 'completed' }));
    } catch (error) {
      // The call ended at Twilio first (the caller hung up; its status callback is on its way): what a hangup wants already holds.
      if (error instanceof TwilioCallError && error.code === CALL_NOT_IN_PROGRESS) return;
      throw error;
    }
  },
  verify: (request, connection) => verifyTwilioSignature(request, connection.credentials.auth_token),
  parse(kind, request): CallEvent[] {
    const body = fields(request.body);
    switch (kind) {
      case 'answer':
        return [{ kind: 'answered', answeredBy: answeredBy(body.AnsweredBy) }];
      case 'listen': {
        const text = (body.SpeechResult ?? '').trim();
        return [text ? { kind: 'speech', text, confidence: number(body.Confidence) } : { kind: 'silence' }];
      }
      case 'status': {
        const status = STATUSES[body.CallStatus ?? ''];
        if (!status) throw new Error(`unknown CallStatus ${JSON.stringify(body.CallStatus ?? null)}`);
        return [{ kind: 'status', status, durationSeconds: number(body.CallDuration) }];
      }
      case 'dial': {
        const outcome = DIAL_OUTCOMES[body.DialCallStatus ?? ''];
        if (!outcome) throw new Error(`unknown DialCallStatus ${JSON.stringify(body.DialCallStatus ?? null)}`);
        return [{ kind: 'transfer_ended', outcome, durationSeconds: number(body.DialCallDuration) }];
      }
      case 'recording':
        if (body.RecordingStatus !== undefined && body.RecordingStatus !== 'completed') return [];
        if (!body.RecordingUrl || !body.RecordingSid) throw new Error('a recording callback without RecordingUrl and RecordingSid');
        return [{ kind: 'recording', url: body.RecordingUrl, durationSeconds: number(body.RecordingDuration), externalId: body.RecordingSid }];
    }
  },
  parseIncoming(request) {
    const body = fields(request.body);
    if (!body.CallSid || !body.From || !body.To) throw new Error('an incoming call without CallSid, From and To');
    return { externalId: body.CallSid, from: body.From, to: body.To };
  },
  respond: (context, instructions) => ({ contentType: 'text/xml', body: renderTwiml(instructions, context.callbackUrl) }),
  fetchRecording: getRecording,
});
