import type { VendorReply } from '../../../../plugins/flows/testing-kit';
import type { TwilioVoiceError } from '../twiml';

/** What the fake keeps of Twilio Programmable Voice: see twilio-voice-server.ts for what is played. */

export interface VoiceAccount {
  sid: string;
  authToken: string;
  /** The account's numbers: a call's `From` must be one of them (empty: any E.164 number). */
  numbers: string[];
}

/** One thing the caller does when Twilio listens (a `<Gather>`, a conference). */
export type CallerStep = { say: string; confidence?: number } | { silence: true } | { hangup: true } | { wait: number };

export type AnsweredBy = 'human' | 'machine_start' | 'machine_end_beep' | 'machine_end_silence' | 'machine_end_other' | 'fax' | 'unknown';

/** How the party at a number behaves; a step the script lacks is the caller hanging up. */
export interface CallerScript {
  /** Default `human`. */
  answer?: 'human' | 'machine' | 'no-answer' | 'busy' | 'failed';
  /** What AMD reports, when the call asked for it; default `human`, or `machine_start` (`Enable`) / `machine_end_beep` (`DetectMessageEnd`) for a machine. */
  answeredBy?: AnsweredBy;
  steps?: CallerStep[];
  /** Simulated seconds of ringing before the outcome (default 2; a no-answer rings the call's `Timeout`). */
  ringSeconds?: number;
}

export type CallStatus = 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';
export type DialCallStatus = 'completed' | 'answered' | 'busy' | 'no-answer' | 'failed' | 'canceled';

/** A request the fake made to our application, and how it answered. */
export interface VoiceFetch {
  callSid: string;
  /** `url`: the call's Url; `voice-url`: an inbound call; `action`: a Gather's; `dial-action`; `redirect`; `update`: a live update's Url; `whisper`: a `<Number url>`/`<Sip url>` on the callee's leg. */
  purpose: 'url' | 'voice-url' | 'action' | 'dial-action' | 'redirect' | 'update' | 'whisper';
  method: string;
  url: string;
  params: Record<string, string>;
  status: number | null;
  contentType: string | null;
  body: string;
  /** A network error, when there was no answer at all. */
  error?: string;
}

/** A callback the fake posted (status, async AMD, recording, conference). */
export interface VoiceCallback {
  callSid: string | null;
  kind: 'status' | 'amd' | 'recording' | 'conference';
  method: string;
  url: string;
  params: Record<string, string>;
  status: number | null;
}

export interface SaidLine {
  text: string;
  voice: string | null;
  language: string | null;
  /** Said inside a `<Gather>` (a prompt) rather than on its own. */
  inGather: boolean;
}

export interface GatherTurn {
  attributes: Record<string, string>;
  action: string;
  method: string;
  language: string;
  hints: string | null;
  speechTimeout: string | null;
  timeout: number;
  actionOnEmptyResult: boolean;
  /** What the caller did: speech, silence, hung up, or the Gather was cut by a live update. */
  result: { speech: string; confidence: number } | 'silence' | 'hangup' | 'interrupted' | null;
}

export interface DialAttempt {
  /** The number dialled, or the `<Sip>` URI. */
  number: string | null;
  /** The noun dialled (a bare number is `Number`). */
  noun: 'Number' | 'Sip' | 'Conference';
  conference: string | null;
  conferenceSid: string | null;
  attributes: Record<string, string>;
  /** `<Conference muted>` when joining. */
  muted: boolean;
  status: DialCallStatus | null;
  /** The noun's `url` document, played to the callee alone once they answered, before the bridge: what it said. */
  whisper: { url: string; method: string; callSid: string; said: SaidLine[] } | null;
}

export interface VoiceCall {
  sid: string;
  accountSid: string;
  direction: 'outbound-api' | 'inbound';
  from: string;
  to: string;
  status: CallStatus;
  statusHistory: CallStatus[];
  /** The form the call was created with (or the inbound call's options). */
  request: Record<string, string>;
  url: string | null;
  method: string;
  twiml: string | null;
  statusCallback: string | null;
  statusCallbackMethod: string;
  statusCallbackEvents: string[];
  machineDetection: 'Enable' | 'DetectMessageEnd' | null;
  asyncAmd: boolean;
  asyncAmdStatusCallback: string | null;
  answeredBy: AnsweredBy | null;
  record: boolean;
  recordingStatusCallback: string | null;
  recording: { sid: string; url: string; duration: number } | null;
  timeoutSeconds: number;
  script: CallerScript;
  /** The next script step to take. */
  stepIndex: number;
  /** Every TwiML document executed, fetched (with its URL) or given (`url: null`). */
  documents: Array<{ url: string | null; body: string }>;
  /** Every verb executed, in order (nested `<Gather>` prompts too). */
  verbs: Array<{ name: string; attributes: Record<string, string>; text: string }>;
  said: SaidLine[];
  played: string[];
  gathers: GatherTurn[];
  dials: DialAttempt[];
  mutes: Array<{ conferenceSid: string; muted: boolean }>;
  updates: Array<Record<string, string>>;
  /** The verb executing now (`Gather` while the fake listens), null between documents. */
  current: string | null;
  transferredTo: string | null;
  endedBy: 'caller' | 'twiml' | 'api' | 'error' | 'network' | null;
  errors: TwilioVoiceError[];
  warnings: TwilioVoiceError[];
  dateCreated: Date;
  startTime: Date | null;
  endTime: Date | null;
  /** Simulated seconds since the answer (Pause, speech, waits), the CallDuration reported. */
  duration: number | null;
}

export interface ConferenceParticipant {
  callSid: string;
  muted: boolean;
  hold: boolean;
  status: 'connected' | 'left';
  attributes: Record<string, string>;
}

export interface VoiceConference {
  sid: string;
  accountSid: string;
  friendlyName: string;
  status: 'init' | 'in-progress' | 'completed';
  participants: ConferenceParticipant[];
  statusCallback: string | null;
  statusCallbackEvents: string[];
  /** `participant-mute`, `conference-start`... as posted (or as they would be, without a statusCallback). */
  events: Array<{ event: string; callSid: string | null }>;
}

export interface VoiceState {
  accounts: VoiceAccount[];
  calls: VoiceCall[];
  conferences: VoiceConference[];
  fetches: VoiceFetch[];
  callbacks: VoiceCallback[];
  /** Scripts by destination number, read when a call is placed (and by `<Dial>`). */
  scripts: Map<string, CallerScript>;
  /** Answered, in order, instead of handling the next REST requests; one with `on` waits for a request whose `METHOD /path` holds it. */
  failures: Array<{ on?: string; reply: VendorReply }>;
}

/** What a call has played so far, empty: the same for a call placed over the API and an incoming one. */
export const playState = () => ({
  stepIndex: 0,
  documents: [],
  verbs: [],
  said: [],
  played: [],
  gathers: [],
  dials: [],
  mutes: [],
  updates: [],
  current: null,
  transferredTo: null,
  endedBy: null,
  errors: [],
  warnings: [],
  dateCreated: new Date(),
  startTime: null,
  endTime: null,
  duration: null,
} satisfies Partial<VoiceCall>);
