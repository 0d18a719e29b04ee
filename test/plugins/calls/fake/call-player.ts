import { newSid } from '../../channels/drivers/twilio/twilio-server';
import { WHISPER_VERBS, parseTwiml, type TwilioVoiceError, type TwimlVerb } from '../twiml';
import { CallRuntime, Interrupted, callParams, isLive, queueCallback, rfc2822, twilioRequest, type NextDocument } from './call-runtime';
import { playConference } from './conference-player';
import type { CallStatus, DialAttempt, DialCallStatus, GatherTurn, VoiceCall, VoiceFetch, VoiceState } from './voice-types';

/** The call's TwiML could not be fetched or run: Twilio's error, the call ends. */
export class CallFailure extends Error {
  constructor(readonly error: TwilioVoiceError) {
    super(`${error.code}: ${error.message}`);
  }
}

/** What a verb leads to: a document to fetch or run next, `stop` (the call ended), nothing (the next verb). */
export type VerbOutcome = NextDocument | 'stop' | undefined;

/** Simulated time a phrase takes to say, for waits and CallDuration: about 2.5 words a second. */
const speechMs = (text: string) => Math.max(1, Math.ceil(text.split(/\s+/).filter(Boolean).length / 2.5)) * 1000;

/** Plays calls as Twilio does, against the state the REST routes keep; one instance per server. */
export class CallPlayer {
  private runtimes = new Map<string, CallRuntime>();
  private clocks = new Map<string, number>();
  private sequences = new Map<string, number>();

  constructor(
    readonly state: VoiceState,
    private readonly timeScale: () => number,
  ) {}

  runtime(call: VoiceCall): CallRuntime {
    let runtime = this.runtimes.get(call.sid);
    if (!runtime) this.runtimes.set(call.sid, (runtime = new CallRuntime()));
    return runtime;
  }

  authToken(call: VoiceCall): string {
    return this.state.accounts.find((account) => account.sid === call.accountSid)!.authToken;
  }

  /** Waits simulated ms (scaled to real time), counted in the call's duration once answered. */
  async wait(call: VoiceCall, simulatedMs: number, token: number): Promise<void> {
    await this.runtime(call).sleep(simulatedMs * this.timeScale(), token);
    this.clocks.set(call.sid, (this.clocks.get(call.sid) ?? 0) + simulatedMs);
  }

  check(call: VoiceCall, token: number): void {
    if (this.runtime(call).token !== token) throw new Interrupted();
  }

  setStatus(call: VoiceCall, status: CallStatus): void {
    call.status = status;
    call.statusHistory.push(status);
  }

  /** A call progress event, posted when the call asked for it. */
  statusEvent(call: VoiceCall, event: 'initiated' | 'ringing' | 'answered' | 'completed'): void {
    if (!call.statusCallback || !call.statusCallbackEvents.includes(event)) return;
    const sequence = this.sequences.get(call.sid) ?? 0;
    this.sequences.set(call.sid, sequence + 1);
    const params: Record<string, string> = {
      ...callParams(call),
      CallStatus: event === 'initiated' ? 'initiated' : call.status,
      CallbackSource: 'call-progress-events',
      Timestamp: rfc2822(),
      SequenceNumber: String(sequence),
    };
    if (call.answeredBy) params.AnsweredBy = call.answeredBy;
    if (event === 'completed') {
      params.CallDuration = String(call.duration ?? 0);
      params.Duration = String(Math.ceil((call.duration ?? 0) / 60));
    }
    void queueCallback(this.state, this.runtime(call), { callSid: call.sid, kind: 'status', method: call.statusCallbackMethod, url: call.statusCallback, params }, this.authToken(call));
  }

  /** Ends a live call: status, the `completed` callback, the recording; `ended` resolves once they are posted. */
  end(call: VoiceCall, status: CallStatus, endedBy: VoiceCall['endedBy']): void {
    if (!isLive(call)) return;
    this.setStatus(call, status);
    call.endTime = new Date();
    call.endedBy = endedBy;
    call.current = null;
    call.duration = call.startTime ? Math.ceil((this.clocks.get(call.sid) ?? 0) / 1000) : 0;
    const runtime = this.runtime(call);
    runtime.interrupt(null);
    this.statusEvent(call, 'completed');
    if (call.record && call.startTime) {
      const sid = newSid('RE');
      call.recording = { sid, url: `${this.baseUrl}/2010-04-01/Accounts/${call.accountSid}/Recordings/${sid}`, duration: call.duration };
      if (call.recordingStatusCallback) {
        const params = {
          AccountSid: call.accountSid,
          CallSid: call.sid,
          RecordingSid: sid,
          RecordingUrl: call.recording.url,
          RecordingStatus: 'completed',
          RecordingDuration: String(call.duration),
          RecordingChannels: call.request.RecordingChannels === 'dual' ? '2' : '1',
          RecordingStartTime: rfc2822(call.startTime),
          RecordingSource: 'OutboundAPI',
          RecordingTrack: 'both',
        };
        void queueCallback(this.state, runtime, { callSid: call.sid, kind: 'recording', method: call.request.RecordingStatusCallbackMethod ?? 'POST', url: call.recordingStatusCallback, params }, this.authToken(call));
      }
    }
    void runtime.callbacks.then(() => runtime.finish());
  }

  baseUrl = '';

  /** An outbound call from creation: ringing, the scripted outcome, AMD, then its TwiML. */
  async playOutbound(call: VoiceCall): Promise<void> {
    const runtime = this.runtime(call);
    const token = runtime.token;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      this.check(call, token);
      this.statusEvent(call, 'initiated');
      this.setStatus(call, 'ringing');
      this.statusEvent(call, 'ringing');
      const answer = call.script.answer ?? 'human';
      if (answer === 'no-answer') {
        await this.wait(call, call.timeoutSeconds * 1000, token);
        return this.end(call, 'no-answer', null);
      }
      await this.wait(call, (call.script.ringSeconds ?? 2) * 1000, token);
      if (answer === 'busy' || answer === 'failed') return this.end(call, answer, null);
      call.startTime = new Date();
      this.clocks.set(call.sid, 0);
      this.setStatus(call, 'in-progress');
      const extra: Record<string, string> = {};
      if (call.machineDetection) {
        const machineDefault = call.machineDetection === 'DetectMessageEnd' ? 'machine_end_beep' : 'machine_start';
        call.answeredBy = call.script.answeredBy ?? (answer === 'human' ? 'human' : machineDefault);
        const detectionMs = call.machineDetection === 'DetectMessageEnd' && answer === 'machine' ? 6000 : 2500;
        if (call.asyncAmd) this.postAsyncAmd(call, detectionMs);
        else {
          await this.wait(call, detectionMs, token);
          extra.AnsweredBy = call.answeredBy;
          extra.MachineDetectionDuration = String(detectionMs);
        }
      }
      this.statusEvent(call, 'answered');
      // Twilio's Call create: with both, the Url is fetched and Twiml ignored.
      const first: NextDocument = call.url ? { kind: 'url', url: call.url, method: call.method, purpose: 'url', params: extra } : { kind: 'twiml', body: call.twiml ?? '' };
      await this.run(call, first);
    } catch (error) {
      this.settle(call, error);
    }
  }

  /** An inbound call: the Voice URL gets `CallStatus=ringing`, the call is answered once its TwiML runs. */
  async playInbound(call: VoiceCall, voiceUrl: string, method: string): Promise<void> {
    try {
      await new Promise((resolve) => setImmediate(resolve));
      await this.run(call, { kind: 'url', url: voiceUrl, method, purpose: 'voice-url' });
    } catch (error) {
      this.settle(call, error);
    }
  }

  private settle(call: VoiceCall, error: unknown): void {
    if (error instanceof Interrupted) return;
    call.errors.push({ code: 0, message: `the Twilio voice fake failed: ${error instanceof Error ? error.stack : String(error)}` });
    this.end(call, 'failed', 'error');
  }

  private postAsyncAmd(call: VoiceCall, detectionMs: number): void {
    setTimeout(() => {
      if (!isLive(call) || !call.asyncAmdStatusCallback) return;
      const params = { AccountSid: call.accountSid, CallSid: call.sid, AnsweredBy: call.answeredBy ?? 'unknown', MachineDetectionDuration: String(detectionMs) };
      void queueCallback(this.state, this.runtime(call), { callSid: call.sid, kind: 'amd', method: call.request.AsyncAmdStatusCallbackMethod ?? 'POST', url: call.asyncAmdStatusCallback, params }, this.authToken(call));
    }, detectionMs * this.timeScale());
  }

  /** Runs documents until the call ends; a live update's document replaces the one cut. */
  private async run(call: VoiceCall, first: NextDocument): Promise<void> {
    const runtime = this.runtime(call);
    let next: NextDocument | null = first;
    while (next && isLive(call)) {
      const token = runtime.token;
      try {
        next = await this.runDocument(call, next, token);
      } catch (error) {
        if (error instanceof Interrupted) {
          next = runtime.pending;
          runtime.pending = null;
          continue;
        }
        if (error instanceof CallFailure) {
          call.errors.push(error.error);
          return this.end(call, 'failed', 'error');
        }
        throw error;
      }
    }
    // The document ran out: Twilio hangs up.
    this.end(call, 'completed', 'twiml');
  }

  private async runDocument(call: VoiceCall, next: NextDocument, token: number): Promise<NextDocument | null> {
    let documentUrl: string | null = null;
    let body: string;
    if (next.kind === 'url') {
      body = await this.fetchTwiml(call, next, token);
      documentUrl = next.url;
    } else body = next.body;
    call.documents.push({ url: documentUrl, body });
    const parsed = parseTwiml(body);
    if (!parsed.ok) throw new CallFailure(parsed.error);
    call.warnings.push(...parsed.warnings);
    if (call.status === 'ringing') {
      // An inbound call is answered when its TwiML starts.
      call.startTime = new Date();
      this.clocks.set(call.sid, 0);
      this.setStatus(call, 'in-progress');
      this.statusEvent(call, 'answered');
    }
    for (const verb of parsed.verbs) {
      const outcome = await this.execute(call, verb, documentUrl, token);
      if (outcome === 'stop') return null;
      if (outcome) return outcome;
    }
    return null;
  }

  private async fetchTwiml(call: VoiceCall, next: Extract<NextDocument, { kind: 'url' }>, token: number): Promise<string> {
    const params = { ...callParams(call), ...next.params };
    const answer = await twilioRequest(next.url, next.method, params, this.authToken(call));
    const fetched: VoiceFetch = { callSid: call.sid, purpose: next.purpose, method: next.method.toUpperCase(), url: next.url, params, ...answer };
    this.state.fetches.push(fetched);
    this.check(call, token);
    if (answer.status !== 200) throw new CallFailure({ code: 11200, message: `HTTP retrieval failure: ${answer.status ?? answer.error} from ${next.url}` });
    const type = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'text/xml' && type !== 'application/xml') throw new CallFailure({ code: 12300, message: `Invalid Content-Type "${answer.contentType}" from ${next.url}` });
    return answer.body;
  }

  /** A URL of the document, absolute, as Twilio resolves relative ones. */
  resolve(target: string | undefined, documentUrl: string | null): string {
    try {
      return new URL(target ?? '', documentUrl ?? undefined).toString();
    } catch {
      throw new CallFailure({ code: 11100, message: `Invalid URL format: "${target ?? ''}" (document ${documentUrl ?? 'given as Twiml'})` });
    }
  }

  private record(call: VoiceCall, verb: TwimlVerb): void {
    call.verbs.push({ name: verb.name, attributes: verb.attributes, text: verb.text });
    call.current = verb.name;
  }

  private async execute(call: VoiceCall, verb: TwimlVerb, documentUrl: string | null, token: number, inGather = false): Promise<VerbOutcome> {
    this.record(call, verb);
    switch (verb.name) {
      case 'Say': {
        call.said.push({ text: verb.text, voice: verb.attributes.voice ?? null, language: verb.attributes.language ?? null, inGather });
        const loops = Math.max(1, Number(verb.attributes.loop ?? 1) || 1);
        await this.wait(call, speechMs(verb.text) * loops, token);
        return undefined;
      }
      case 'Play':
        call.played.push(verb.text);
        await this.wait(call, 1000, token);
        return undefined;
      case 'Pause':
        await this.wait(call, Number(verb.attributes.length ?? 1) * 1000, token);
        return undefined;
      case 'Hangup':
        this.end(call, 'completed', 'twiml');
        return 'stop';
      case 'Redirect':
        return { kind: 'url', url: this.resolve(verb.text, documentUrl), method: verb.attributes.method ?? 'POST', purpose: 'redirect' };
      case 'Gather':
        return this.gather(call, verb, documentUrl, token);
      case 'Dial':
        return verb.children[0]?.name === 'Conference' ? playConference(this, call, verb, documentUrl, token) : this.dialNumber(call, verb, documentUrl, token);
      default:
        throw new CallFailure({ code: 12200, message: `<${verb.name}> is not played` });
    }
  }

  private async gather(call: VoiceCall, verb: TwimlVerb, documentUrl: string | null, token: number): Promise<VerbOutcome> {
    const attributes = verb.attributes;
    const turn: GatherTurn = {
      attributes,
      action: this.resolve(attributes.action, documentUrl),
      method: attributes.method ?? 'POST',
      language: attributes.language ?? 'en-US',
      hints: attributes.hints ?? null,
      speechTimeout: attributes.speechTimeout ?? null,
      timeout: Number(attributes.timeout ?? 5) || 5,
      actionOnEmptyResult: attributes.actionOnEmptyResult === 'true',
      result: null,
    };
    call.gathers.push(turn);
    try {
      for (const prompt of verb.children) await this.execute(call, prompt, documentUrl, token, true);
      call.current = 'Gather';
      for (;;) {
        const step = call.script.steps?.[call.stepIndex];
        call.stepIndex += 1;
        if (!step || 'hangup' in step) {
          turn.result = 'hangup';
          this.end(call, 'completed', 'caller');
          return 'stop';
        }
        if ('wait' in step) {
          await this.wait(call, step.wait, token);
          continue;
        }
        if ('say' in step) {
          await this.wait(call, speechMs(step.say), token);
          const confidence = step.confidence ?? 0.92;
          turn.result = { speech: step.say, confidence };
          return { kind: 'url', url: turn.action, method: turn.method, purpose: 'action', params: { SpeechResult: step.say, Confidence: String(confidence) } };
        }
        await this.wait(call, turn.timeout * 1000, token);
        turn.result = 'silence';
        // Without actionOnEmptyResult, Twilio goes on with the verbs after the Gather.
        return turn.actionOnEmptyResult ? { kind: 'url', url: turn.action, method: turn.method, purpose: 'action' } : undefined;
      }
    } catch (error) {
      if (error instanceof Interrupted && turn.result === null) turn.result = 'interrupted';
      throw error;
    }
  }

  private async dialNumber(call: VoiceCall, verb: TwimlVerb, documentUrl: string | null, token: number): Promise<VerbOutcome> {
    const noun = verb.children[0];
    const number = noun?.text || verb.text;
    const attempt: DialAttempt = { number, noun: noun?.name === 'Sip' ? 'Sip' : 'Number', conference: null, conferenceSid: null, attributes: verb.attributes, muted: false, status: null, whisper: null };
    call.dials.push(attempt);
    const script = this.state.scripts.get(number) ?? {};
    const answer = script.answer ?? 'human';
    let talkMs = 0;
    if (answer === 'no-answer') await this.wait(call, (Number(verb.attributes.timeout ?? 30) || 30) * 1000, token);
    else await this.wait(call, (script.ringSeconds ?? 2) * 1000, token);
    const childSid = newSid('CA');
    if ((answer === 'human' || answer === 'machine') && noun?.attributes.url) await this.whisper(call, attempt, noun, childSid, documentUrl, token);
    if (answer === 'human' || answer === 'machine') {
      call.transferredTo = number;
      // The two parties talk: the dialled script's steps, as time.
      talkMs = (script.steps ?? []).reduce((sum, step) => sum + ('wait' in step ? step.wait : 'say' in step ? speechMs(step.say) : 0), 0) || 1000;
      await this.wait(call, talkMs, token);
    }
    attempt.status = answer === 'human' || answer === 'machine' ? 'completed' : answer;
    if (!verb.attributes.action) return undefined;
    return {
      kind: 'url',
      url: this.resolve(verb.attributes.action, documentUrl),
      method: verb.attributes.method ?? 'POST',
      purpose: 'dial-action',
      params: { DialCallStatus: attempt.status, DialCallSid: childSid, DialCallDuration: String(Math.ceil(talkMs / 1000)), DialBridged: String(attempt.status === 'completed') },
    };
  }

  /**
   * The noun's `url` on the callee's leg, as Twilio documents it for `<Number>` and `<Sip>`:
   * requested (signed, `method`, default POST) with the child call's parameters once the callee
   * answered, its document played to the callee alone before the two parties are bridged. The
   * fake plays `<Say>`, `<Play>` and `<Pause>` there; a failure to fetch or parse it fails the call.
   */
  private async whisper(call: VoiceCall, attempt: DialAttempt, noun: TwimlVerb, childSid: string, documentUrl: string | null, token: number): Promise<void> {
    const url = this.resolve(noun.attributes.url, documentUrl);
    const method = (noun.attributes.method ?? 'POST').toUpperCase();
    const params = {
      AccountSid: call.accountSid,
      ApiVersion: '2010-04-01',
      CallSid: childSid,
      ParentCallSid: call.sid,
      CallStatus: 'in-progress',
      Direction: 'outbound-dial',
      From: call.from,
      To: attempt.number ?? '',
      Called: attempt.number ?? '',
      Caller: call.from,
    };
    const answer = await twilioRequest(url, method, params, this.authToken(call));
    this.state.fetches.push({ callSid: childSid, purpose: 'whisper', method, url, params, ...answer });
    this.check(call, token);
    if (answer.status !== 200) throw new CallFailure({ code: 11200, message: `HTTP retrieval failure: ${answer.status ?? answer.error} from ${url} (the <${noun.name} url>)` });
    const type = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'text/xml' && type !== 'application/xml') throw new CallFailure({ code: 12300, message: `Invalid Content-Type "${answer.contentType}" from ${url}` });
    const parsed = parseTwiml(answer.body);
    if (!parsed.ok) throw new CallFailure(parsed.error);
    const played = parsed.verbs.find((verb) => !WHISPER_VERBS.has(verb.name));
    if (played) throw new CallFailure({ code: 12200, message: `<${played.name}> in a <${noun.name} url> document is not played by the Twilio voice fake` });
    attempt.whisper = { url, method, callSid: childSid, said: [] };
    for (const verb of parsed.verbs) {
      if (verb.name === 'Say') attempt.whisper.said.push({ text: verb.text, voice: verb.attributes.voice ?? null, language: verb.attributes.language ?? null, inGather: false });
      await this.wait(call, verb.name === 'Say' ? speechMs(verb.text) : verb.name === 'Pause' ? Number(verb.attributes.length ?? 1) * 1000 : 1000, token);
    }
  }

  /** A live update (Twiml or Url) of an in-progress call: what runs is cut, `next` runs. */
  redirect(call: VoiceCall, next: NextDocument): void {
    this.runtime(call).interrupt(next);
  }

  ended(call: VoiceCall): Promise<void> {
    return this.runtime(call).done;
  }
}
