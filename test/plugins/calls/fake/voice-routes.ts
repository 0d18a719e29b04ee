import type { VendorReply, VendorRequest, VendorRoutes } from '../../../../plugins/flows/testing-kit';
import { newSid, twilioError } from '../../channels/drivers/twilio/twilio-server';
import type { CallPlayer } from './call-player';
import { isLive, rfc2822 } from './call-runtime';
import { setMuted } from './conference-player';
import type { VoiceAccount, VoiceCall, VoiceConference, VoiceState } from './voice-types';
import { playState } from './voice-types';

/**
 * The REST side of Programmable Voice (API 2010-04-01), form-encoded with HTTP Basic
 * (account SID, auth token): Calls create, fetch and update; Conferences list; Conference
 * Participants fetch and update (`Muted`, `Hold`); a recording's media (`.wav`, `.mp3`).
 */

const E164 = /^\+[1-9]\d{1,14}$/;
const API = '/2010-04-01/Accounts';

function authenticate(request: VendorRequest, state: VoiceState): VoiceAccount | VendorReply {
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
  const [user, password] = match ? Buffer.from(match[1], 'base64').toString('utf8').split(/:(.*)/s) : [];
  const account = state.accounts.find((candidate) => candidate.sid === user && candidate.authToken === password);
  if (!account) return twilioError(401, 20003, 'Authenticate');
  if (account.sid !== request.params.accountSid) return twilioError(404, 20404, `The requested resource ${request.path} was not found`);
  return account;
}

const isReply = (value: VoiceAccount | VendorReply): value is VendorReply => !('authToken' in value);

function scriptedFailure(request: VendorRequest, state: VoiceState): VendorReply | null {
  const index = state.failures.findIndex((failure) => !failure.on || `${request.method} ${request.path}`.includes(failure.on));
  return index < 0 ? null : state.failures.splice(index, 1)[0].reply;
}

const notFound = (request: VendorRequest) => twilioError(404, 20404, `The requested resource ${request.path} was not found`);
const isUrl = (value: string) => /^https?:\/\/[^\s/]+/i.test(value);

/** The Call resource as the API answers it. */
export function callResource(call: VoiceCall): Record<string, unknown> {
  const uri = `${API}/${call.accountSid}/Calls/${call.sid}`;
  return {
    sid: call.sid,
    date_created: rfc2822(call.dateCreated),
    date_updated: rfc2822(call.endTime ?? call.startTime ?? call.dateCreated),
    parent_call_sid: null,
    account_sid: call.accountSid,
    to: call.to,
    to_formatted: call.to,
    from: call.from,
    from_formatted: call.from,
    phone_number_sid: null,
    status: call.status,
    start_time: call.startTime ? rfc2822(call.startTime) : null,
    end_time: call.endTime ? rfc2822(call.endTime) : null,
    duration: call.endTime ? String(call.duration ?? 0) : null,
    price: null,
    price_unit: 'USD',
    direction: call.direction,
    answered_by: call.answeredBy,
    api_version: '2010-04-01',
    forwarded_from: null,
    group_sid: null,
    caller_name: null,
    queue_time: '0',
    trunk_sid: null,
    uri: `${uri}.json`,
    subresource_uris: { recordings: `${uri}/Recordings.json`, notifications: `${uri}/Notifications.json`, events: `${uri}/Events.json` },
  };
}

function participantResource(conference: VoiceConference, callSid: string): Record<string, unknown> | null {
  const participant = conference.participants.find((candidate) => candidate.callSid === callSid);
  if (!participant) return null;
  return {
    account_sid: conference.accountSid,
    call_sid: callSid,
    label: null,
    call_sid_to_coach: null,
    coaching: false,
    conference_sid: conference.sid,
    date_created: rfc2822(),
    date_updated: rfc2822(),
    end_conference_on_exit: participant.attributes.endConferenceOnExit === 'true',
    muted: participant.muted,
    hold: participant.hold,
    start_conference_on_enter: participant.attributes.startConferenceOnEnter !== 'false',
    status: participant.status === 'connected' ? 'connected' : 'completed',
    queue_time: '0',
    uri: `${API}/${conference.accountSid}/Conferences/${conference.sid}/Participants/${callSid}.json`,
  };
}

/** The parameters Twilio documents for a Participant update; anything else is refused, so a test sees what we send. */
const PARTICIPANT_UPDATE = new Set([
  'Muted', 'Hold', 'HoldUrl', 'HoldMethod', 'AnnounceUrl', 'AnnounceMethod', 'WaitUrl', 'WaitMethod', 'BeepOnExit', 'EndConferenceOnExit', 'Coaching', 'CallSidToCoach',
]);

const events = (form: URLSearchParams) => form.getAll('StatusCallbackEvent').flatMap((value) => value.split(/[\s,]+/)).filter(Boolean);

/** A `Name.json` path segment's name. */
const jsonName = (segment: string) => (segment.endsWith('.json') ? segment.slice(0, -5) : null);

export function voiceRoutes(player: CallPlayer): VendorRoutes<VoiceState> {
  const find = (state: VoiceState, account: VoiceAccount, segment: string) => {
    const sid = jsonName(segment);
    return state.calls.find((call) => call.sid === sid && call.accountSid === account.sid);
  };

  function createCall(request: VendorRequest, state: VoiceState): VendorReply {
    const failure = scriptedFailure(request, state);
    if (failure) return failure;
    const account = authenticate(request, state);
    if (isReply(account)) return account;
    const form = new URLSearchParams(request.body);
    const to = form.get('To');
    const from = form.get('From');
    const url = form.get('Url');
    const twiml = form.get('Twiml');
    if (!to) return twilioError(400, 21201, "No 'To' number is specified");
    if (!from) return twilioError(400, 21213, "No 'From' number is specified");
    if (!E164.test(to)) return twilioError(400, 21217, `Phone number does not appear to be valid: ${to}`);
    if (!E164.test(from)) return twilioError(400, 21212, `Invalid From Number (caller ID): ${from}`);
    if (account.numbers.length > 0 && !account.numbers.includes(from)) {
      return twilioError(400, 21210, `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.`);
    }
    if (!url && !twiml && !form.get('ApplicationSid')) return twilioError(400, 21205, 'Url parameter is required.');
    if (url && !isUrl(url)) return twilioError(400, 21205, `Url is not a valid URL: ${url}`);
    const statusCallback = form.get('StatusCallback');
    if (statusCallback && !isUrl(statusCallback)) return twilioError(400, 21609, `StatusCallback is not a valid URL: ${statusCallback}`);
    const machineDetection = form.get('MachineDetection');
    if (machineDetection && machineDetection !== 'Enable' && machineDetection !== 'DetectMessageEnd') return twilioError(400, 20001, `MachineDetection must be Enable or DetectMessageEnd, not ${machineDetection}`);
    const requested = events(form);
    const call: VoiceCall = {
      sid: newSid('CA'),
      accountSid: account.sid,
      direction: 'outbound-api',
      from,
      to,
      status: 'queued',
      statusHistory: ['queued'],
      request: Object.fromEntries(form),
      url,
      method: (form.get('Method') ?? 'POST').toUpperCase(),
      twiml,
      statusCallback,
      statusCallbackMethod: (form.get('StatusCallbackMethod') ?? 'POST').toUpperCase(),
      statusCallbackEvents: statusCallback ? (requested.length > 0 ? requested : ['completed']) : [],
      machineDetection: (machineDetection as VoiceCall['machineDetection']) ?? null,
      asyncAmd: form.get('AsyncAmd') === 'true',
      asyncAmdStatusCallback: form.get('AsyncAmdStatusCallback'),
      answeredBy: null,
      record: form.get('Record') === 'true',
      recordingStatusCallback: form.get('RecordingStatusCallback'),
      recording: null,
      timeoutSeconds: Number(form.get('Timeout') ?? 60) || 60,
      script: structuredClone(state.scripts.get(to) ?? {}),
      ...playState(),
    };
    state.calls.push(call);
    void player.playOutbound(call);
    return { status: 201, body: callResource(call) };
  }

  function fetchCall(request: VendorRequest, state: VoiceState): VendorReply {
    const failure = scriptedFailure(request, state);
    if (failure) return failure;
    const account = authenticate(request, state);
    if (isReply(account)) return account;
    const call = find(state, account, request.params.callFile);
    return call ? { body: callResource(call) } : notFound(request);
  }

  function updateCall(request: VendorRequest, state: VoiceState): VendorReply {
    const failure = scriptedFailure(request, state);
    if (failure) return failure;
    const account = authenticate(request, state);
    if (isReply(account)) return account;
    const call = find(state, account, request.params.callFile);
    if (!call) return notFound(request);
    const form = new URLSearchParams(request.body);
    const status = form.get('Status');
    const twiml = form.get('Twiml');
    const url = form.get('Url');
    if (status && status !== 'completed' && status !== 'canceled') return twilioError(400, 20001, `Invalid Status "${status}": completed or canceled`);
    if (url && !isUrl(url)) return twilioError(400, 21205, `Url is not a valid URL: ${url}`);
    if (!status && !twiml && !url) return twilioError(400, 21205, 'Url, Twiml or Status is required.');
    if (!isLive(call)) return twilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');
    call.updates.push(Object.fromEntries(form));
    if (status === 'completed') player.end(call, call.status === 'in-progress' ? 'completed' : 'canceled', 'api');
    else if (status === 'canceled') {
      // Twilio cancels only a call not yet answered; an answered one goes on.
      if (call.status !== 'in-progress') player.end(call, 'canceled', 'api');
    } else if (call.status !== 'in-progress') {
      // Not answered yet: the new instructions are the ones run on answer.
      call.twiml = twiml;
      call.url = twiml ? null : url;
      if (url) call.method = (form.get('Method') ?? 'POST').toUpperCase();
    } else {
      player.redirect(call, twiml ? { kind: 'twiml', body: twiml } : { kind: 'url', url: url!, method: (form.get('Method') ?? 'POST').toUpperCase(), purpose: 'update' });
    }
    return { body: callResource(call) };
  }

  function listConferences(request: VendorRequest, state: VoiceState): VendorReply {
    const account = authenticate(request, state);
    if (isReply(account)) return account;
    const name = request.query.get('FriendlyName');
    const status = request.query.get('Status');
    const conferences = state.conferences
      .filter((conference) => conference.accountSid === account.sid && (!name || conference.friendlyName === name) && (!status || conference.status === status))
      .map((conference) => ({
        sid: conference.sid,
        account_sid: conference.accountSid,
        friendly_name: conference.friendlyName,
        status: conference.status,
        api_version: '2010-04-01',
        uri: `${API}/${account.sid}/Conferences/${conference.sid}.json`,
      }));
    return { body: { conferences, page: 0, page_size: 50, first_page_uri: request.path, next_page_uri: null, previous_page_uri: null, start: 0, end: Math.max(0, conferences.length - 1), uri: request.path } };
  }

  function participant(request: VendorRequest, state: VoiceState, update: boolean): VendorReply {
    const failure = scriptedFailure(request, state);
    if (failure) return failure;
    const account = authenticate(request, state);
    if (isReply(account)) return account;
    const conference = state.conferences.find((candidate) => candidate.sid === request.params.conferenceSid && candidate.accountSid === account.sid);
    const callSid = jsonName(request.params.callFile);
    const current = conference?.participants.find((candidate) => candidate.callSid === callSid);
    if (!conference || !current || !callSid) return notFound(request);
    if (update) {
      const form = new URLSearchParams(request.body);
      const unknown = [...form.keys()].find((key) => !PARTICIPANT_UPDATE.has(key));
      if (unknown) return twilioError(400, 20001, `Invalid parameter ${unknown} for a Participant update`);
      if (!form.has('Muted') && !form.has('Hold') && !form.has('AnnounceUrl')) return twilioError(400, 20001, 'Nothing to update: Muted, Hold or AnnounceUrl is required');
      const muted = form.get('Muted');
      if (muted !== null) {
        if (muted !== 'true' && muted !== 'false') return twilioError(400, 20001, `Muted must be true or false, not ${muted}`);
        if (current.status === 'left') return notFound(request);
        setMuted(player, conference, current, muted === 'true');
      }
      const hold = form.get('Hold');
      if (hold === 'true' || hold === 'false') current.hold = hold === 'true';
    }
    return { body: participantResource(conference, callSid) };
  }

  function recordingMedia(request: VendorRequest, state: VoiceState): VendorReply {
    const match = /^(RE[0-9a-f]{32})\.(wav|mp3)$/.exec(request.params.recordingFile);
    const call = match && state.calls.find((candidate) => candidate.recording?.sid === match[1] && candidate.accountSid === request.params.accountSid);
    if (!match || !call) return notFound(request);
    return match[2] === 'wav' ? { headers: { 'content-type': 'audio/x-wav' }, body: silentWav() } : { headers: { 'content-type': 'audio/mpeg' }, body: silentMp3() };
  }

  /** The Account resource (`GET /Accounts/{sid}.json`), which a Twilio connection is checked against when it is made. */
  function fetchAccount(request: VendorRequest, state: VoiceState): VendorReply {
    const sid = request.params.accountFile.replace(/\.json$/, '');
    const account = authenticate({ ...request, params: { ...request.params, accountSid: sid } }, state);
    if (isReply(account)) return account;
    return { body: { sid: account.sid, friendly_name: 'Fake account', status: 'active', type: 'Full' } };
  }

  return {
    [`GET ${API}/:accountFile`]: fetchAccount,
    [`POST ${API}/:accountSid/Calls.json`]: createCall,
    [`GET ${API}/:accountSid/Calls/:callFile`]: fetchCall,
    [`POST ${API}/:accountSid/Calls/:callFile`]: updateCall,
    [`GET ${API}/:accountSid/Conferences.json`]: listConferences,
    [`GET ${API}/:accountSid/Conferences/:conferenceSid/Participants/:callFile`]: (request, state) => participant(request, state, false),
    [`POST ${API}/:accountSid/Conferences/:conferenceSid/Participants/:callFile`]: (request, state) => participant(request, state, true),
    [`GET ${API}/:accountSid/Recordings/:recordingFile`]: recordingMedia,
  };
}

/** A tenth of a second of 8 kHz 16-bit mono silence, as a RIFF/WAVE file. */
function silentWav(): Buffer {
  const samples = 800;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

/** One MPEG-1 Layer III frame (128 kb/s, 44.1 kHz) whose side information is empty: silence. */
function silentMp3(): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64], 0);
  return frame;
}
