import { signTwilioRequest } from '../../channels/drivers/twilio/twilio-server';
import type { VoiceCall, VoiceCallback, VoiceState } from './voice-types';

/**
 * What a call needs while it plays and that is not state: the token a live update bumps to
 * cut what runs, the sleeps it wakes, the chain that keeps a call's callbacks in order, and
 * the promise `ended` waits on.
 */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** Where a call's next TwiML comes from. */
export type NextDocument =
  | { kind: 'url'; url: string; method: string; purpose: 'url' | 'voice-url' | 'action' | 'dial-action' | 'redirect' | 'update'; params?: Record<string, string> }
  | { kind: 'twiml'; body: string };

export class CallRuntime {
  token = 0;
  pending: NextDocument | null = null;
  private wakers = new Set<() => void>();
  callbacks: Promise<void> = Promise.resolve();
  readonly done: Promise<void>;
  finish!: () => void;

  constructor() {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** Cuts what the call executes; `next` runs instead (none: the call is over). */
  interrupt(next: NextDocument | null): void {
    this.pending = next;
    this.token += 1;
    for (const wake of [...this.wakers]) wake();
  }

  /** Waits `realMs`; throws Interrupted when a live update (or the end) cuts it. */
  async sleep(realMs: number, token: number): Promise<void> {
    if (token !== this.token) throw new Interrupted();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, realMs));
      this.wakers.add(wake);
    });
    if (token !== this.token) throw new Interrupted();
  }
}

export const rfc2822 = (date: Date = new Date()) => date.toUTCString().replace('GMT', '+0000');

/** A request as Twilio makes it: POST form-encoded (or GET with the params in the query), signed. */
export async function twilioRequest(
  url: string,
  method: string,
  params: Record<string, string>,
  authToken: string,
): Promise<{ status: number | null; contentType: string | null; body: string; error?: string }> {
  const get = method.toUpperCase() === 'GET';
  let target = url;
  if (get) {
    const full = new URL(url);
    for (const [name, value] of Object.entries(params)) full.searchParams.append(name, value);
    target = full.toString();
  }
  const signature = signTwilioRequest(authToken, target, get ? {} : params);
  try {
    const response = await fetch(target, {
      method: get ? 'GET' : 'POST',
      headers: { 'x-twilio-signature': signature, 'user-agent': 'TwilioProxy/1.1', ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      body: get ? undefined : new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
  } catch (error) {
    return { status: null, contentType: null, body: '', error: error instanceof Error ? error.message : String(error) };
  }
}

/** Posts a callback after the call's earlier ones (Twilio's are asynchronous, ours stay ordered for tests). */
export function queueCallback(
  state: VoiceState,
  runtime: CallRuntime | null,
  callback: Omit<VoiceCallback, 'status'>,
  authToken: string,
): Promise<void> {
  const record: VoiceCallback = { ...callback, status: null };
  state.callbacks.push(record);
  const send = async () => {
    const answer = await twilioRequest(callback.url, callback.method, callback.params, authToken);
    record.status = answer.status;
  };
  if (!runtime) return send();
  runtime.callbacks = runtime.callbacks.then(send);
  return runtime.callbacks;
}

/** The parameters of every voice webhook for this call. */
export function callParams(call: VoiceCall): Record<string, string> {
  return {
    AccountSid: call.accountSid,
    ApiVersion: '2010-04-01',
    CallSid: call.sid,
    CallStatus: call.status,
    Called: call.to,
    Caller: call.from,
    Direction: call.direction,
    From: call.from,
    To: call.to,
    FromCountry: 'US',
    ToCountry: 'US',
  };
}

export const isLive = (call: VoiceCall) => call.status === 'queued' || call.status === 'ringing' || call.status === 'in-progress';
