import { newSid } from '../../channels/drivers/twilio/twilio-server';
import type { TwimlVerb } from '../twiml';
import type { CallPlayer, VerbOutcome } from './call-player';
import { Interrupted, queueCallback, rfc2822 } from './call-runtime';
import type { ConferenceParticipant, VoiceCall, VoiceConference } from './voice-types';

/**
 * `<Dial><Conference>`: the call joins the named conference of its account (made on first
 * join), muted when the noun says so, and stays there while its caller's script waits; a
 * `say` or `silence` step passes unheard, the script's end (or `hangup`) is the caller
 * leaving. A live update takes the call out. Conference status callbacks are posted for the
 * events the noun's `statusCallbackEvent` names.
 */

/** The noun's event names (`start end join leave mute hold`) for each posted `StatusCallbackEvent`. */
const EVENT_NAMES: Record<string, string> = {
  'conference-start': 'start',
  'conference-end': 'end',
  'participant-join': 'join',
  'participant-leave': 'leave',
  'participant-mute': 'mute',
  'participant-unmute': 'mute',
  'participant-hold': 'hold',
  'participant-unhold': 'hold',
};

const sequences = new WeakMap<VoiceConference, number>();

export function conferenceEvent(player: CallPlayer, conference: VoiceConference, event: string, participant: ConferenceParticipant | null): void {
  conference.events.push({ event, callSid: participant?.callSid ?? null });
  if (!conference.statusCallback || !conference.statusCallbackEvents.includes(EVENT_NAMES[event])) return;
  const sequence = sequences.get(conference) ?? 0;
  sequences.set(conference, sequence + 1);
  const params: Record<string, string> = {
    AccountSid: conference.accountSid,
    ConferenceSid: conference.sid,
    FriendlyName: conference.friendlyName,
    StatusCallbackEvent: event,
    Timestamp: rfc2822(),
    SequenceNumber: String(sequence),
  };
  if (participant) {
    Object.assign(params, {
      CallSid: participant.callSid,
      Muted: String(participant.muted),
      Hold: String(participant.hold),
      Coaching: 'false',
      EndConferenceOnExit: String(participant.attributes.endConferenceOnExit === 'true'),
      StartConferenceOnEnter: String(participant.attributes.startConferenceOnEnter !== 'false'),
    });
  }
  const token = player.state.accounts.find((account) => account.sid === conference.accountSid)!.authToken;
  const call = participant ? player.state.calls.find((candidate) => candidate.sid === participant.callSid) : undefined;
  void queueCallback(player.state, call ? player.runtime(call) : null, { callSid: participant?.callSid ?? null, kind: 'conference', method: 'POST', url: conference.statusCallback, params }, token);
}

export function setMuted(player: CallPlayer, conference: VoiceConference, participant: ConferenceParticipant, muted: boolean): void {
  participant.muted = muted;
  const call = player.state.calls.find((candidate) => candidate.sid === participant.callSid);
  call?.mutes.push({ conferenceSid: conference.sid, muted });
  conferenceEvent(player, conference, muted ? 'participant-mute' : 'participant-unmute', participant);
}

function leave(player: CallPlayer, conference: VoiceConference, participant: ConferenceParticipant): void {
  if (participant.status === 'left') return;
  participant.status = 'left';
  conferenceEvent(player, conference, 'participant-leave', participant);
  if (conference.status !== 'completed' && conference.participants.every((other) => other.status === 'left')) {
    conference.status = 'completed';
    conferenceEvent(player, conference, 'conference-end', null);
  }
}

export async function playConference(player: CallPlayer, call: VoiceCall, verb: TwimlVerb, _documentUrl: string | null, token: number): Promise<VerbOutcome> {
  const noun = verb.children[0];
  const name = noun.text;
  let conference = player.state.conferences.find((candidate) => candidate.accountSid === call.accountSid && candidate.friendlyName === name && candidate.status !== 'completed');
  if (!conference) {
    conference = {
      sid: newSid('CF'),
      accountSid: call.accountSid,
      friendlyName: name,
      status: 'init',
      participants: [],
      statusCallback: noun.attributes.statusCallback ?? null,
      statusCallbackEvents: (noun.attributes.statusCallbackEvent ?? '').split(/[\s,]+/).filter(Boolean),
      events: [],
    };
    player.state.conferences.push(conference);
  }
  const muted = noun.attributes.muted === 'true';
  call.dials.push({ number: null, noun: 'Conference', whisper: null, conference: name, conferenceSid: conference.sid, attributes: { ...verb.attributes, ...noun.attributes }, muted, status: null });
  const participant: ConferenceParticipant = { callSid: call.sid, muted, hold: false, status: 'connected', attributes: noun.attributes };
  conference.participants.push(participant);
  if (conference.status === 'init' && noun.attributes.startConferenceOnEnter !== 'false') {
    conference.status = 'in-progress';
    conferenceEvent(player, conference, 'conference-start', null);
  }
  conferenceEvent(player, conference, 'participant-join', participant);
  call.current = 'Conference';
  try {
    for (;;) {
      const step = call.script.steps?.[call.stepIndex];
      call.stepIndex += 1;
      if (!step || 'hangup' in step) {
        leave(player, conference, participant);
        player.end(call, 'completed', 'caller');
        return 'stop';
      }
      if ('wait' in step) await player.wait(call, step.wait, token);
      else await player.wait(call, 'say' in step ? step.say.split(/\s+/).length * 400 : 5000, token);
    }
  } catch (error) {
    if (error instanceof Interrupted) leave(player, conference, participant);
    throw error;
  }
}
