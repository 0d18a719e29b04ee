import type { Egress, Logger, Static, TSchema } from '../../core';
import type { InboundRequest } from '../channels';

/**
 * The telephony driver contract: what a plugin declares to carry agents' voice calls on
 * a provider (Twilio's Programmable Voice, a PBX through Asterisk's ARI, a partner's).
 * The calls plugin owns everything around it: the call resource and its states, the
 * conversation and its turns, voice settings (first lines, silence, duration), live
 * actions, webhooks and the callback routes. A driver speaks its provider's language:
 * it places and changes calls, checks callback signatures, reads callbacks, and turns
 * the plugin's instructions into what the provider plays.
 *
 * Two styles fit: a provider that asks what to do next on each callback (Twilio: the
 * answer is TwiML, see `respond`) and one that is told (a PBX: `perform` pushes the
 * same instructions as commands, and `respond` answers an empty acknowledgement).
 * Add one with `telephonyDrivers.add(driver)` in a plugin's `contributes`.
 */

/** What the call does next, in order. */
export type CallInstruction =
  | { type: 'say'; text: string; language: string; voice: string | null }
  /** Wait for the caller's next utterance; it comes back as a `speech` event, or `silence` after `timeoutSeconds`. */
  | { type: 'listen'; timeoutSeconds: number; language: string }
  /**
   * Hand the call over (a number in E.164, a SIP URI such as a PBX extension's); the agent's part of the call ends.
   * `mode` (absent: `cold`): `cold` connects the caller at once; `warm` first plays `announcement` to the callee
   * once they answer, before the two are connected (a routing rule's `transfer_type`, see the calls section of
   * docs/architecture.md). A driver that cannot announce treats `warm` as `cold`.
   * The callee rings for `timeoutSeconds` (absent: the provider's default, 30 s on Twilio). However the dial ends, the
   * driver reports it as a `transfer_ended` event to the call's `dial` callback: answered and over, the call ends
   * (`ended_reason: transferred`); busy, unanswered or failed, the agent takes the call back (the answer is its
   * fallback line and a `listen`).
   */
  | { type: 'transfer'; destination: string; mode?: TransferMode; announcement?: Announcement; timeoutSeconds?: number }
  | { type: 'hangup' };

export type TransferMode = 'cold' | 'warm';

/** What the callee of a warm transfer hears before being connected. */
export interface Announcement {
  text: string;
  language: string;
  voice: string | null;
}

/** The callbacks of one call the plugin gives the provider, each at its own URL (`dial`: the end of a transfer's dial, Twilio's `<Dial action>`). */
export type CallbackKind = 'answer' | 'listen' | 'status' | 'recording' | 'dial';

/**
 * URLs the plugin serves without reading an event: `announce` answers, in the driver's
 * language (`respond`), a `say` of its `text` query parameter with the agent's voice: what a
 * provider that fetches instructions (Twilio's `<Number url>`) plays to a warm transfer's
 * callee. The provider's signature covers the query, so the text cannot be forged.
 */
export type ServedKind = 'announce';

/** A provider's call state, as a status callback tells it. */
export type ProviderCallStatus = 'queued' | 'ringing' | 'in_progress' | 'completed' | 'busy' | 'no_answer' | 'failed' | 'canceled';

/**
 * How a transfer's dial ended (Twilio's `DialCallStatus`): `completed`, the callee answered and
 * the two talked until one hung up; `busy`, `no_answer` (not picked up within the timeout),
 * `failed` (the destination could not be reached) and `canceled` (stopped before an answer):
 * nobody took the call, which comes back to the agent.
 */
export type TransferOutcome = 'completed' | 'busy' | 'no_answer' | 'failed' | 'canceled';

/** What a callback tells. */
export type CallEvent =
  /** The callee picked up (or a machine did): the call now needs its first instructions. */
  | { kind: 'answered'; answeredBy: 'human' | 'machine' | 'unknown' }
  | { kind: 'speech'; text: string; confidence: number | null }
  | { kind: 'silence' }
  | { kind: 'status'; status: ProviderCallStatus; durationSeconds: number | null }
  | { kind: 'recording'; url: string; durationSeconds: number | null; externalId: string }
  /** A transfer's dial ended (the `dial` callback); `durationSeconds`: how long the callee talked. */
  | { kind: 'transfer_ended'; outcome: TransferOutcome; durationSeconds: number | null };

/** A call coming in to one of the account's numbers. */
export interface IncomingCall {
  externalId: string;
  from: string;
  to: string;
}

/** A connection as a driver sees it: credentials opened for the call, never for a response or a log line. */
export interface TelephonyConnection<C = Record<string, unknown>> {
  uuid: string;
  provider: string;
  credentials: C;
}

export interface CallDriverContext<C = Record<string, unknown>> {
  connection: TelephonyConnection<C>;
  /** The one HTTP client for outbound calls (SSRF guard, timeouts); every provider call goes through it. */
  egress: Egress;
  /** The provider's API base URL, from config (TWILIO_API_BASE_URL), without a trailing slash. */
  apiBaseUrl: string;
  /** The public URL of one of this call's callbacks (for an incoming call, once it is known). */
  callbackUrl(kind: CallbackKind | ServedKind): string;
  logger: Logger;
}

export interface PlaceCall {
  to: string;
  from: string;
  /** Detect an answering machine and say so in the `answered` event (a voicemail greeting gets the agent's voicemail message). */
  machineDetection: boolean;
  /** Record the call; the recording comes back as a `recording` event. */
  record: boolean;
}

export type MuteChange =
  | { muted: true; room: string; before?: readonly CallInstruction[] }
  | { muted: false; room: string; resume: readonly CallInstruction[] };

/**
 * A provider call that failed. `retryable` says a later try may succeed (a 429, a 5xx,
 * the network); the plugin decides whether to try again.
 */
export class TelephonySendError extends Error {
  override readonly name = 'TelephonySendError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface TelephonyDriver<S extends TSchema = TSchema> {
  /** The `provider` of the connections it serves (a channel connection's, `twilio`). */
  provider: string;
  /** How users know it (`Twilio Programmable Voice`). */
  name: string;
  /** The schema of the credentials it reads of its connections (checked where the connection is made). */
  credentials: S;
  /** Starts an outbound call; answers the provider's id of it. Throws TelephonySendError. */
  placeCall(context: CallDriverContext<Static<S>>, call: PlaceCall): Promise<{ externalId: string }>;
  /** Carries out instructions on a live call now, replacing what it was doing (a live action, a deadline). Throws TelephonySendError. */
  perform(context: CallDriverContext<Static<S>>, externalId: string, instructions: readonly CallInstruction[]): Promise<void>;
  /** Ends the call now (a ringing one is cancelled). Throws TelephonySendError. */
  hangup(context: CallDriverContext<Static<S>>, externalId: string): Promise<void>;
  /** Whether a callback really comes from the provider, by its own signature; false answers 401 and nothing is read. Compare in constant time. */
  verify(request: InboundRequest, connection: TelephonyConnection<Static<S>>): boolean;
  /** What a verified callback of this kind tells; throw for a body it cannot read (400). */
  parse(kind: CallbackKind, request: InboundRequest): CallEvent[];
  /** A verified request to the account's incoming-call URL; throw for a body it cannot read (400). */
  parseIncoming(request: InboundRequest): IncomingCall;
  /** The answer to a callback: the instructions in the provider's language (TwiML); a driver that acts through `perform` answers an acknowledgement. */
  respond(context: CallDriverContext<Static<S>>, instructions: readonly CallInstruction[]): { contentType: string; body: string };
  /**
   * Mutes the call's line (`muted`) or lets it speak again; absent, the plugin mutes the agent
   * alone (it stops answering, the call goes on listening). Twilio's driver moves the call into
   * a conference of its own named `room` and mutes its participant; `before` is played first
   * (a live `say` while muted), and `resume` is what the call does once unmuted. Throws TelephonySendError.
   */
  mute?(context: CallDriverContext<Static<S>>, externalId: string, change: MuteChange): Promise<void>;
  /** The recording's audio, fetched with the connection's credentials. */
  fetchRecording?(context: CallDriverContext<Static<S>>, url: string): Promise<{ body: Buffer; contentType: string }>;
}

/** Identity helper that types `credentials` from the schema. */
export const defineTelephonyDriver = <S extends TSchema>(driver: TelephonyDriver<S>): TelephonyDriver<S> => driver;
