import { randomBytes } from 'node:crypto';
import { startVendorServer, type VendorServer } from '../../../plugins/flows/testing-kit';
import { newSid, signTwilioRequest, signedTwilioHook, type SignedTwilioHook } from '../channels/drivers/twilio/twilio-server';
import { CallPlayer } from './fake/call-player';
import { callParams, isLive } from './fake/call-runtime';
import { voiceRoutes } from './fake/voice-routes';
import type { CallerScript, VoiceAccount, VoiceCall, VoiceState } from './fake/voice-types';
import { playState } from './fake/voice-types';

export type { CallerScript, CallerStep, VoiceCall, VoiceState, VoiceAccount, VoiceConference, VoiceFetch, VoiceCallback } from './fake/voice-types';
export { callResource } from './fake/voice-routes';

/**
 * Twilio Programmable Voice played on loopback from its documented request and response
 * shapes, for the Twilio telephony driver's tests. The REST API (2010-04-01, form-encoded,
 * HTTP Basic) answers as Twilio does, and each call is then played asynchronously: signed
 * requests to our application's URLs, TwiML executed verb by verb, a scripted party at the
 * other end. Everything is kept in `state` for assertions.
 *
 * Played:
 * - `POST /Accounts/{sid}/Calls.json`: 401 (20003) on bad credentials; 400 with Twilio's
 *   codes for a missing To (21201) or From (21213), a To (21217) or From (21212) not E.164,
 *   a From not the account's (21210), no Url/Twiml (21205), a bad Url (21205); 201 with the
 *   Call resource, status `queued`. Url wins over Twiml when both are given (as documented).
 * - `GET`/`POST /Accounts/{sid}/Calls/{CallSid}.json`: fetch; live update with `Twiml` or
 *   `Url` (what executes is cut, a Gather included, and the new document runs),
 *   `Status=completed` (hangs up; a call not yet answered ends `canceled`), `Status=canceled`
 *   (a call not yet answered; Twilio ignores it on an answered one); an ended call: 21220.
 * - Status callbacks for the `StatusCallbackEvent`s asked (default `completed`), signed
 *   with `X-Twilio-Signature`, with CallbackSource, Timestamp, SequenceNumber, CallDuration
 *   on completed, AnsweredBy with AMD; `initiated` carries CallStatus `initiated`.
 * - The callee's scripted outcome: `no-answer` (after the call's Timeout), `busy`, `failed`,
 *   or answered by a `human` or `machine`. AMD (`MachineDetection=Enable|DetectMessageEnd`):
 *   sync passes `AnsweredBy` and `MachineDetectionDuration` on the Url request, `AsyncAmd`
 *   posts them to `AsyncAmdStatusCallback` while the TwiML runs.
 * - TwiML: `<Say>` (words, voice, language, loop), `<Play>` (URL kept), `<Pause length>`,
 *   `<Gather input="speech">` (nested Say/Play/Pause prompts; an utterance posts the action,
 *   by default the document's URL, with SpeechResult and Confidence; silence posts it without
 *   them under `actionOnEmptyResult="true"`, else the verbs after the Gather run and a
 *   document that runs out ends the call `completed`), `<Redirect>`, `<Hangup>`,
 *   `<Dial>` a number (bare or `<Number>`: the dialled number's script says who answers;
 *   then the `action` with DialCallStatus, DialCallSid, DialCallDuration, DialBridged, or
 *   the next verbs), `<Dial><Sip>` a SIP URI (`sip:user@host[:port][;transport=udp|tcp|tls]`,
 *   else 12200; its script is the URI's), a `<Number url>` or `<Sip url>` (requested signed
 *   with the child leg's CallSid, ParentCallSid, Direction=outbound-dial once the callee
 *   answers, its `<Say>`/`<Play>`/`<Pause>` played to the callee alone before the bridge and
 *   kept in `dials[].whisper`), `<Dial><Conference muted statusCallback statusCallbackEvent>`,
 *   and the Participant update `Muted=true|false` (only Twilio's documented update
 *   parameters are taken, else 20001; conference callbacks participant-mute/unmute, join,
 *   leave, conference-start/end); `GET /Conferences.json?FriendlyName=&Status=`.
 * - Recording (`Record=true`): on the end, `RecordingStatusCallback` with RecordingSid,
 *   RecordingUrl, RecordingStatus, RecordingDuration, RecordingChannels; the media at
 *   RecordingUrl + `.wav` (a short silent WAV) or `.mp3` (one silent frame).
 * - Inbound calls (`incomingCall`): the Voice URL gets Direction=inbound, CallStatus=ringing.
 * - What our application answers is checked: not 200 -> 11200 (HTTP retrieval failure);
 *   not text/xml or application/xml -> 12300 (Invalid Content-Type); not XML or no
 *   `<Response>` root -> 12100 (Document parse failure); an unknown verb or bad nesting ->
 *   12200 (Schema validation); a bad actionOnEmptyResult -> 13338; an unresolvable
 *   relative URL -> 11100. Each ends the call `failed` with the error in `call.errors`
 *   (stricter than Twilio, which says an application error and hangs up, so a test cannot
 *   miss it). Warnings (13327 speechTimeout, 13313 timeout) go to `call.warnings`.
 *
 * Not played (a document using them fails with 12200 naming the fake): `<Record>`,
 * `<Reject>`, `<Enqueue>`, `<Connect>`/`<Stream>`, `<Start>`, `<Pay>`, `<Refer>`, DTMF input
 * (a Gather without `input` including `speech`, valid TwiML, is refused as our bug),
 * `<Dial>` to Client/Queue or several nouns, `<Hangup>`/`<Gather>` in a `<Number url>`
 * document. Also not played: FallbackUrl, the ApplicationSid of a create, partial speech results, conference hold music, recordings
 * started other ways than `Record=true`, price, and the exact rate at which Twilio speaks.
 * Failed calls and their callbacks differ from Twilio as said above.
 *
 * Time is simulated: `<Pause>`, speech (about 2.5 words a second), ringing, the Gather
 * timeout and a script's `wait` are simulated milliseconds, slept as `ms * timeScale` real
 * milliseconds (default 0.001: an hour lasts 3.6 s) and summed into CallDuration.
 * A script's `wait` during a Gather holds it (the Gather timeout applies to `silence` only),
 * the way a test keeps a call listening while it updates it.
 */

export interface IncomingCallOptions {
  /** Default: the first account. */
  accountSid?: string;
  /** One of the account's numbers (when it lists any). */
  to: string;
  from: string;
  voiceUrl: string;
  voiceMethod?: 'GET' | 'POST';
  statusCallback?: string;
  statusCallbackEvents?: string[];
  script?: CallerScript;
}

export interface TwilioVoiceServer extends VendorServer<VoiceState> {
  /** Real milliseconds per simulated millisecond. */
  timeScale: number;
  /** The first account (most tests have one). */
  readonly account: VoiceAccount;
  /** How the party at `number` behaves, for calls placed (or dialled) after this. */
  script(number: string, script: CallerScript): void;
  call(callSid: string): VoiceCall;
  /** Resolves with the call once it ended and its callbacks were answered. */
  ended(callSid: string, timeoutMs?: number): Promise<VoiceCall>;
  /** Resolves with the predicate's first truthy answer (polled over the state). */
  waitFor<T>(predicate: (state: VoiceState) => T | null | undefined | false, timeoutMs?: number): Promise<T>;
  /** A call to one of our numbers: the Voice URL is requested and its TwiML played. */
  incomingCall(options: IncomingCallOptions): VoiceCall;
  /** The parameters of this call's webhooks (CallSid, AccountSid, From, To, CallStatus...), plus `extra`. */
  webhookParams(callSid: string, extra?: Record<string, string>): Record<string, string>;
  /** A request signed as Twilio signs it, with the account's auth token. */
  signedCallback(url: string, params: Record<string, string>, options?: { accountSid?: string }): SignedTwilioHook;
  /** The same request, its signature made with another token. */
  badlySignedCallback(url: string, params: Record<string, string>): SignedTwilioHook;
  /** Ends every live call and forgets calls, conferences, fetches, callbacks, scripts, failures and requests. */
  reset(): void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startTwilioVoiceServer(options: { accounts?: Array<Partial<VoiceAccount>>; timeScale?: number } = {}): Promise<TwilioVoiceServer> {
  const state: VoiceState = {
    accounts: (options.accounts ?? [{}]).map((account) => ({ sid: account.sid ?? newSid('AC'), authToken: account.authToken ?? randomBytes(16).toString('hex'), numbers: account.numbers ?? [] })),
    calls: [],
    conferences: [],
    fetches: [],
    callbacks: [],
    scripts: new Map(),
    failures: [],
  };
  let timeScale = options.timeScale ?? 0.001;
  const player = new CallPlayer(state, () => timeScale);
  const server = await startVendorServer<VoiceState>(voiceRoutes(player), { state });
  player.baseUrl = server.url;

  const call = (callSid: string) => {
    const found = state.calls.find((candidate) => candidate.sid === callSid);
    if (!found) throw new Error(`the Twilio voice fake has no call ${callSid}`);
    return found;
  };
  const endAll = () => {
    for (const live of state.calls.filter(isLive)) player.end(live, 'canceled', 'api');
  };

  async function waitFor<T>(predicate: (state: VoiceState) => T | null | undefined | false, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = predicate(state);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`the Twilio voice fake waited ${timeoutMs} ms in vain for ${predicate.toString()}`);
      await pause(5);
    }
  }

  const voiceServer: Omit<TwilioVoiceServer, keyof VendorServer<VoiceState>> = {
    get timeScale() {
      return timeScale;
    },
    set timeScale(value: number) {
      timeScale = value;
    },
    get account() {
      return state.accounts[0];
    },
    script(number, script) {
      state.scripts.set(number, script);
    },
    call,
    async ended(callSid, timeoutMs = 10_000) {
      const found = call(callSid);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`call ${callSid} did not end within ${timeoutMs} ms (status ${found.status}, executing ${found.current ?? 'nothing'})`)), timeoutMs);
      });
      try {
        await Promise.race([player.ended(found), timeout]);
      } finally {
        clearTimeout(timer);
      }
      return found;
    },
    waitFor,
    incomingCall(incoming) {
      const account = incoming.accountSid ? state.accounts.find((candidate) => candidate.sid === incoming.accountSid) : state.accounts[0];
      if (!account) throw new Error(`the Twilio voice fake has no account ${incoming.accountSid}`);
      if (account.numbers.length > 0 && !account.numbers.includes(incoming.to)) throw new Error(`${incoming.to} is not a number of account ${account.sid}`);
      const inbound: VoiceCall = {
        sid: newSid('CA'),
        accountSid: account.sid,
        direction: 'inbound',
        from: incoming.from,
        to: incoming.to,
        status: 'ringing',
        statusHistory: ['ringing'],
        request: {},
        url: incoming.voiceUrl,
        method: incoming.voiceMethod ?? 'POST',
        twiml: null,
        statusCallback: incoming.statusCallback ?? null,
        statusCallbackMethod: 'POST',
        statusCallbackEvents: incoming.statusCallback ? (incoming.statusCallbackEvents ?? ['completed']) : [],
        machineDetection: null,
        asyncAmd: false,
        asyncAmdStatusCallback: null,
        answeredBy: null,
        record: false,
        recordingStatusCallback: null,
        recording: null,
        timeoutSeconds: 60,
        script: structuredClone(incoming.script ?? {}),
        ...playState(),
      };
      state.calls.push(inbound);
      void player.playInbound(inbound, incoming.voiceUrl, inbound.method);
      return inbound;
    },
    webhookParams(callSid, extra = {}) {
      return { ...callParams(call(callSid)), ...extra };
    },
    signedCallback(url, params, signOptions = {}) {
      const account = signOptions.accountSid ? state.accounts.find((candidate) => candidate.sid === signOptions.accountSid) : state.accounts[0];
      if (!account) throw new Error(`the Twilio voice fake has no account ${signOptions.accountSid}`);
      return signedTwilioHook(url, params, account.authToken);
    },
    badlySignedCallback(url, params) {
      const hook = signedTwilioHook(url, params, state.accounts[0].authToken);
      const wrong = signTwilioRequest(`not-${state.accounts[0].authToken}`, url, params);
      return { ...hook, headers: { ...hook.headers, 'x-twilio-signature': wrong } };
    },
    reset() {
      endAll();
      state.calls.length = 0;
      state.conferences.length = 0;
      state.fetches.length = 0;
      state.callbacks.length = 0;
      state.failures.length = 0;
      state.scripts.clear();
      server.requests.length = 0;
    },
  };
  const close = server.close;
  return Object.defineProperties(server, {
    ...Object.getOwnPropertyDescriptors(voiceServer),
    close: {
      value: async () => {
        endAll();
        await close();
      },
    },
  }) as TwilioVoiceServer;
}
