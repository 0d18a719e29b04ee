/**
 * The scripted side of bench/calls.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/calls/scripted.ts`, forked with IPC):
 *
 * - the model (core/testing/fake-llm-server.ts), answering each turn at once with a
 *   one-word line naming the turn (`Ref:<turn id>`), and keeping the server-side span of
 *   every request of a turn (received -> response written);
 * - the Twilio-shaped voice server of the calls tests (test/plugins/calls/twilio-voice-server.ts):
 *   it takes the calls the kernel places, rings, answers, follows the kernel's TwiML and
 *   plays each callee's script (its utterances come back to the kernel as `SpeechResult`s
 *   on the `<Gather>` action, the `listen` callback), in simulated time slept at
 *   `BENCH_TIME_SCALE` real ms per simulated ms (1: as long as on a phone);
 * - the timing of each callback the voice server makes, taken where it makes them: its
 *   `fetch` calls, seen through undici's diagnostics channels (request created -> response
 *   body complete). Each `listen` request is paired with the voice server's own record of
 *   it (the `SpeechResult` posted, the TwiML answered), in order per call URL.
 *
 * Everything is stamped on the system clock (bench/lib/runtime-clock.ts), so the parent can
 * set the model's spans against its own chat requests too.
 */
import diagnostics from 'node:diagnostics_channel';
import { startFakeLlmServer } from '../../core/testing/fake-llm-server';
import { startTwilioVoiceServer, type CallerScript, type VoiceCall } from '../../test/plugins/calls/twilio-voice-server';
import { runChild } from '../lib/children';
import { clockCorrection } from '../lib/runtime-clock';
import { replyText, TURN_ID, turnIdOf } from '../lib/turn-ids';

/** One callback of a call, as the voice server made it. */
export interface CallbackTiming {
  kind: 'answer' | 'listen' | 'status' | 'other';
  callSid: string | null;
  /** The turn the `SpeechResult` named (listen only). */
  turnId: string | null;
  /** Request created -> response body complete, system-clock ms. */
  start: number;
  end: number | null;
  status: number | null;
  /** The answer was TwiML saying the turn's line (listen) or any TwiML (answer). */
  ok: boolean;
  error?: string;
}

export interface CallOutcome {
  sid: string;
  to: string;
  status: string;
  endedBy: string | null;
  turnsHeard: number;
  errors: string[];
}

export interface RunReport {
  callbacks: CallbackTiming[];
  /** [start, end] of each model request per turn id, system-clock ms. */
  spans: Record<string, Array<[number, number]>>;
  calls: CallOutcome[];
  /** [at, calls in progress], sampled every 100 ms. */
  live: Array<[number, number]>;
  modelRequests: number;
  unnamedModelRequests: number;
}

export type ScriptedMessage =
  | { type: 'ready'; llmUrl: string; twilioUrl: string; accountSid: string; authToken: string }
  | { type: 'scripted' }
  /** `listening`: calls whose `<Gather>` runs (answered, the first TwiML played). */
  | { type: 'progress'; calls: number; live: number; ended: number; listening: number }
  | { type: 'calls'; calls: Array<{ sid: string; to: string; from: string; status: string }> }
  | { type: 'report'; report: RunReport }
  | { type: 'error'; error: string };

export type ScriptedRequest = { type: 'script'; scripts: Array<[string, CallerScript]> } | { type: 'progress' } | { type: 'calls' } | { type: 'report' } | 'stop';

const CALLBACK_PATH = /^\/hooks\/calls\/[0-9a-f-]+\/(answer|listen|status)$/;

async function runScripted(timeScale: number): Promise<void> {
  const correction = clockCorrection();
  const now = () => performance.timeOrigin + performance.now() + correction;
  let spans = new Map<string, Array<[number, number]>>();
  const counts = { modelRequests: 0, unnamedModelRequests: 0 };

  const model = await startFakeLlmServer({
    fallback: (request) => {
      counts.modelRequests++;
      const turnId = turnIdOf(request);
      if (request.body?.response_format?.json_schema?.name === 'guard_check') return { json: { rule_uuid: null } };
      if (!turnId) {
        // Not a turn's (a summary or an analyzer at a conversation's close): a short text.
        counts.unnamedModelRequests++;
        return { content: 'Noted.' };
      }
      // The fake server answers synchronously once this returns (no delay): a microtask queued now runs after its res.end().
      queueMicrotask(() => {
        let list = spans.get(turnId);
        if (!list) spans.set(turnId, (list = []));
        list.push([request.receivedAt + correction, now()]);
      });
      return { content: replyText(turnId) };
    },
  });
  const trimModel = setInterval(() => model.requests.splice(0), 1000);

  const twilio = await startTwilioVoiceServer({ accounts: [{ numbers: [] }], timeScale });

  // The voice server's requests to our callbacks, timed as its fetch makes them; by URL, in order.
  type Pending = { url: string; kind: CallbackTiming['kind']; start: number; end: number | null; status: number | null; error?: string };
  let byUrl = new Map<string, Pending[]>();
  const inFlight = new WeakMap<object, Pending>();
  diagnostics.subscribe('undici:request:create', (message: any) => {
    const path = String(message.request.path ?? '');
    const kind = CALLBACK_PATH.exec(path)?.[1] as CallbackTiming['kind'] | undefined;
    if (!kind) return;
    const url = `${message.request.origin}${path}`;
    const pending: Pending = { url, kind, start: now(), end: null, status: null };
    inFlight.set(message.request, pending);
    let list = byUrl.get(url);
    if (!list) byUrl.set(url, (list = []));
    list.push(pending);
  });
  diagnostics.subscribe('undici:request:headers', (message: any) => {
    const pending = inFlight.get(message.request);
    if (pending) pending.status = message.response.statusCode;
  });
  diagnostics.subscribe('undici:request:trailers', (message: any) => {
    const pending = inFlight.get(message.request);
    if (pending) pending.end = now();
  });
  diagnostics.subscribe('undici:request:error', (message: any) => {
    const pending = inFlight.get(message.request);
    if (pending) pending.error = String(message.error?.message ?? message.error);
  });

  let live: Array<[number, number]> = [];
  const sampler = setInterval(() => live.push([now(), twilio.state.calls.filter((call) => call.status === 'in-progress').length]), 100);

  const report = (): RunReport => {
    const callbacks: CallbackTiming[] = [];
    // The voice server's record of each Twiml fetch (answer: the call's Url; listen: a Gather's action), in order per URL.
    const fetchesByUrl = new Map<string, typeof twilio.state.fetches>();
    for (const fetched of twilio.state.fetches) {
      const list = fetchesByUrl.get(fetched.url) ?? [];
      list.push(fetched);
      fetchesByUrl.set(fetched.url, list);
    }
    for (const [url, timings] of byUrl) {
      const fetched = fetchesByUrl.get(url) ?? [];
      timings.forEach((timing, index) => {
        const record = timing.kind === 'status' ? undefined : fetched[index];
        const turnId = timing.kind === 'listen' ? (TURN_ID.exec(record?.params.SpeechResult ?? '')?.[1] ?? null) : null;
        const ok =
          timing.end !== null &&
          timing.status === 200 &&
          (timing.kind === 'status' || (record !== undefined && record.body.includes('<Response>') && (turnId === null || record.body.includes(replyText(turnId)))));
        callbacks.push({ kind: timing.kind, callSid: record?.callSid ?? null, turnId, start: timing.start, end: timing.end, status: timing.status, ok, ...(timing.error ? { error: timing.error } : {}) });
      });
    }
    const calls = twilio.state.calls.map((call: VoiceCall) => ({
      sid: call.sid,
      to: call.to,
      status: call.status,
      endedBy: call.endedBy,
      turnsHeard: call.said.filter((line) => line.text.startsWith('Ref:')).length,
      errors: call.errors.map((error) => `${error.code}: ${error.message}`),
    }));
    const out: RunReport = { callbacks, spans: Object.fromEntries(spans), calls, live, ...counts };
    // The next run starts clean (the parent asks once every call of the run ended).
    spans = new Map();
    byUrl = new Map();
    live = [];
    counts.modelRequests = counts.unnamedModelRequests = 0;
    twilio.reset();
    return out;
  };

  process.on('message', (message: ScriptedRequest) => {
    if (message === 'stop') {
      clearInterval(trimModel);
      clearInterval(sampler);
      void Promise.all([model.close(), twilio.close()]).then(() => process.exit(0));
    } else if (message.type === 'script') {
      for (const [number, script] of message.scripts) twilio.script(number, script);
      process.send!({ type: 'scripted' } satisfies ScriptedMessage);
    } else if (message.type === 'progress') {
      const calls = twilio.state.calls;
      const isLive = (call: VoiceCall) => call.status === 'queued' || call.status === 'ringing' || call.status === 'in-progress';
      process.send!({
        type: 'progress',
        calls: calls.length,
        live: calls.filter(isLive).length,
        ended: calls.filter((call) => !isLive(call)).length,
        listening: calls.filter((call) => call.status === 'in-progress' && call.current === 'Gather').length,
      } satisfies ScriptedMessage);
    } else if (message.type === 'calls') {
      process.send!({ type: 'calls', calls: twilio.state.calls.map((call) => ({ sid: call.sid, to: call.to, from: call.from, status: call.status })) } satisfies ScriptedMessage);
    } else if (message.type === 'report') {
      process.send!({ type: 'report', report: report() } satisfies ScriptedMessage);
    }
  });
  process.send!({ type: 'ready', llmUrl: model.url, twilioUrl: twilio.url, accountSid: twilio.account.sid, authToken: twilio.account.authToken } satisfies ScriptedMessage);
}

if (require.main === module) runChild(() => runScripted(Number(process.env.BENCH_TIME_SCALE ?? '1')));
