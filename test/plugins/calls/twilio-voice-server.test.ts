import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InboundRequest } from '../../../plugins/channels/driver';
import { verifyTwilioSignature } from '../../../plugins/channels/drivers/twilio/signature';
import { startTwilioVoiceServer, type TwilioVoiceServer, type VoiceCall } from './twilio-voice-server';

/** The Twilio voice fake alone, driven by a tiny TwiML application over node:http. */

const OUR_NUMBER = '+15005550006';
const CUSTOMER = '+14155550123';

interface AppRequest extends InboundRequest {
  path: string;
  params: Record<string, string>;
}
type AppReply = string | { status?: number; type?: string; body: string };
type AppHandler = (request: AppRequest) => AppReply;

/** Our side: TwiML by path (200 text/xml for a string), and every request it got. */
interface TwimlApp {
  url: string;
  requests: AppRequest[];
  routes: Record<string, AppHandler>;
  close(): Promise<void>;
}

async function startTwimlApp(): Promise<TwimlApp> {
  const app: TwimlApp = { url: '', requests: [], routes: {}, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const url = `${app.url}${req.url}`;
      const parsed = new URL(url);
      const form = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
      const request: AppRequest = {
        method: req.method as 'GET' | 'POST',
        url,
        path: parsed.pathname,
        headers: req.headers as Record<string, string>,
        rawBody,
        body: form,
        query: Object.fromEntries(parsed.searchParams),
        params: req.method === 'GET' ? Object.fromEntries(parsed.searchParams) : form,
      };
      app.requests.push(request);
      const handler = app.routes[parsed.pathname];
      const reply: AppReply = handler ? handler(request) : { type: 'text/plain', body: 'ok' };
      const { status = 200, type = 'text/xml', body } = typeof reply === 'string' ? { body: reply } : reply;
      res.writeHead(status, { 'content-type': type }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return app;
}

const twiml = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${inner}</Response>`;

let twilio: TwilioVoiceServer;
let app: TwimlApp;

beforeAll(async () => {
  twilio = await startTwilioVoiceServer({ accounts: [{ numbers: [OUR_NUMBER] }] });
  app = await startTwimlApp();
});
afterAll(async () => {
  await twilio.close();
  await app.close();
});
beforeEach(() => {
  twilio.reset();
  app.requests.length = 0;
  app.routes = {};
});

/** The REST API as the driver calls it. */
async function api(method: 'GET' | 'POST', path: string, form: Record<string, string | string[]> = {}, auth = `${twilio.account.sid}:${twilio.account.authToken}`) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const item of [value].flat()) body.append(name, item);
  const response = await fetch(`${twilio.url}/2010-04-01/Accounts/${twilio.account.sid}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(auth).toString('base64')}`, ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    body: method === 'POST' ? body.toString() : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function placeCall(form: Record<string, string | string[]> = {}): Promise<string> {
  const created = await api('POST', '/Calls.json', { To: CUSTOMER, From: OUR_NUMBER, Url: `${app.url}/voice`, ...form });
  expect(created.status).toBe(201);
  return created.body.sid as string;
}

const requestsTo = (path: string) => app.requests.filter((request) => request.path === path);
const saidTexts = (call: VoiceCall) => call.said.map((line) => line.text);

describe('an outbound call', () => {
  it('answers the Call resource queued, then plays two speech turns, the status callbacks and our hangup', async () => {
    twilio.script(CUSTOMER, { answer: 'human', steps: [{ say: 'I would like a table', confidence: 0.88 }, { say: 'Tomorrow at eight' }] });
    let turns = 0;
    app.routes['/voice'] = () =>
      twiml('<Say voice="Polly.Joanna" language="en-US">Hello, how can I help?</Say><Gather input="speech" action="/turn" speechTimeout="auto" language="en-US" hints="table, booking"/>');
    app.routes['/turn'] = () => {
      turns += 1;
      return turns === 1 ? twiml('<Gather input="speech" action="/turn"><Say>For when?</Say></Gather>') : twiml('<Say>Booked. Goodbye.</Say><Hangup/>');
    };
    const created = await api('POST', '/Calls.json', {
      To: CUSTOMER,
      From: OUR_NUMBER,
      Url: `${app.url}/voice`,
      StatusCallback: `${app.url}/status`,
      StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'queued', direction: 'outbound-api', to: CUSTOMER, from: OUR_NUMBER, account_sid: twilio.account.sid, api_version: '2010-04-01' });
    expect(created.body.sid).toMatch(/^CA[0-9a-f]{32}$/);

    const call = await twilio.ended(created.body.sid);
    expect(call.status).toBe('completed');
    expect(call.endedBy).toBe('twiml');
    expect(call.statusHistory).toEqual(['queued', 'ringing', 'in-progress', 'completed']);
    expect(call.said).toEqual([
      { text: 'Hello, how can I help?', voice: 'Polly.Joanna', language: 'en-US', inGather: false },
      { text: 'For when?', voice: null, language: null, inGather: true },
      { text: 'Booked. Goodbye.', voice: null, language: null, inGather: false },
    ]);
    expect(call.gathers.map((turn) => [turn.hints, turn.speechTimeout, turn.result])).toEqual([
      ['table, booking', 'auto', { speech: 'I would like a table', confidence: 0.88 }],
      [null, null, { speech: 'Tomorrow at eight', confidence: 0.92 }],
    ]);
    expect(call.verbs.map((verb) => verb.name)).toEqual(['Say', 'Gather', 'Gather', 'Say', 'Say', 'Hangup']);
    expect(call.documents).toHaveLength(3);

    const [voice] = requestsTo('/voice');
    expect(voice.params).toMatchObject({ CallSid: call.sid, AccountSid: twilio.account.sid, From: OUR_NUMBER, To: CUSTOMER, CallStatus: 'in-progress', Direction: 'outbound-api', ApiVersion: '2010-04-01' });
    expect(voice.params.AnsweredBy).toBeUndefined();
    expect(requestsTo('/turn').map((request) => [request.params.SpeechResult, request.params.Confidence])).toEqual([
      ['I would like a table', '0.88'],
      ['Tomorrow at eight', '0.92'],
    ]);

    const statuses = requestsTo('/status').map((request) => request.params);
    expect(statuses.map((params) => [params.CallStatus, params.SequenceNumber, params.CallbackSource])).toEqual([
      ['initiated', '0', 'call-progress-events'],
      ['ringing', '1', 'call-progress-events'],
      ['in-progress', '2', 'call-progress-events'],
      ['completed', '3', 'call-progress-events'],
    ]);
    expect(Number(statuses[3].CallDuration)).toBe(call.duration);
    expect(call.duration).toBeGreaterThan(0);
    expect(statuses[3]).toMatchObject({ CallSid: call.sid, Direction: 'outbound-api', From: OUR_NUMBER, To: CUSTOMER, AccountSid: twilio.account.sid });
    expect(statuses[3].Timestamp).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);

    const fetched = await api('GET', `/Calls/${call.sid}.json`);
    expect(fetched.body).toMatchObject({ sid: call.sid, status: 'completed', duration: String(call.duration) });
    expect(twilio.state.fetches.every((fetch) => fetch.status === 200)).toBe(true);
  });

  it('goes on after a silent Gather without actionOnEmptyResult, and ends completed when the document runs out', async () => {
    twilio.script(CUSTOMER, { steps: [{ silence: true }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech" action="/turn" timeout="3"><Say>Are you there?</Say></Gather><Say>We did not hear you.</Say>');
    const call = await twilio.ended(await placeCall());
    expect(call.status).toBe('completed');
    expect(call.gathers[0].result).toBe('silence');
    expect(requestsTo('/turn')).toHaveLength(0);
    expect(saidTexts(call)).toEqual(['Are you there?', 'We did not hear you.']);
  });

  it('posts the action without SpeechResult on silence with actionOnEmptyResult="true"', async () => {
    twilio.script(CUSTOMER, { steps: [{ silence: true }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech" action="/turn" actionOnEmptyResult="true"/><Say>Never said.</Say>');
    app.routes['/turn'] = () => twiml('<Say>Goodbye.</Say><Hangup/>');
    const call = await twilio.ended(await placeCall());
    const [turn] = requestsTo('/turn');
    expect(turn.params.CallSid).toBe(call.sid);
    expect('SpeechResult' in turn.params).toBe(false);
    expect('Confidence' in turn.params).toBe(false);
    expect(saidTexts(call)).toEqual(['Goodbye.']);
  });

  it('is hung up by the caller when the script has no step left', async () => {
    twilio.script(CUSTOMER, { steps: [{ say: 'Hello?' }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech" action="/turn"/>');
    app.routes['/turn'] = () => twiml('<Gather input="speech" action="/turn"><Say>Anything else?</Say></Gather>');
    const call = await twilio.ended(await placeCall());
    expect(call).toMatchObject({ status: 'completed', endedBy: 'caller' });
    expect(call.gathers.map((turn) => turn.result)).toEqual([{ speech: 'Hello?', confidence: 0.92 }, 'hangup']);
  });
});

describe('live modification', () => {
  it('cuts a Gather with new Twiml and runs it', async () => {
    twilio.script(CUSTOMER, { steps: [{ wait: 3_600_000 }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech" action="/turn"><Say>Tell me.</Say></Gather>');
    const sid = await placeCall();
    await twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.current === 'Gather');
    const updated = await api('POST', `/Calls/${sid}.json`, { Twiml: twiml('<Say>Sorry, we have to go.</Say><Hangup/>') });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toBe('in-progress');
    const call = await twilio.ended(sid);
    expect(call.gathers[0].result).toBe('interrupted');
    expect(saidTexts(call)).toEqual(['Tell me.', 'Sorry, we have to go.']);
    expect(call.documents.map((document) => document.url)).toEqual([`${app.url}/voice`, null]);
    expect(call).toMatchObject({ status: 'completed', endedBy: 'twiml' });
    // The hour-long wait was cut, not counted.
    expect(call.duration).toBeLessThan(60);
  });

  it('hangs up with Status=completed, and refuses to update the ended call (21220)', async () => {
    twilio.script(CUSTOMER, { steps: [{ wait: 3_600_000 }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech" action="/turn"/>');
    const sid = await placeCall({ StatusCallback: `${app.url}/status` });
    await twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.current === 'Gather');
    const hungUp = await api('POST', `/Calls/${sid}.json`, { Status: 'completed' });
    expect(hungUp.body.status).toBe('completed');
    const call = await twilio.ended(sid);
    expect(call.endedBy).toBe('api');
    expect(requestsTo('/status').map((request) => request.params.CallStatus)).toEqual(['completed']);
    const again = await api('POST', `/Calls/${sid}.json`, { Twiml: twiml('<Say>Too late</Say>') });
    expect(again).toEqual({ status: 400, body: expect.objectContaining({ code: 21220, status: 400 }) });
  });

  it('fetches a new Url given on update', async () => {
    twilio.script(CUSTOMER, { steps: [{ wait: 3_600_000 }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech"/>');
    app.routes['/transfer'] = () => twiml('<Say>Transferring you.</Say>');
    const sid = await placeCall();
    await twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.current === 'Gather');
    await api('POST', `/Calls/${sid}.json`, { Url: `${app.url}/transfer` });
    const call = await twilio.ended(sid);
    expect(saidTexts(call)).toEqual(['Transferring you.']);
    expect(twilio.state.fetches.map((fetch) => fetch.purpose)).toEqual(['url', 'update']);
  });
});

describe('outcomes', () => {
  it('passes AnsweredBy on the Url request with sync AMD, and reports it on the call', async () => {
    twilio.script(CUSTOMER, { answer: 'machine' });
    app.routes['/voice'] = (request) => (request.params.AnsweredBy?.startsWith('machine') ? twiml('<Pause length="1"/><Say>Please call us back.</Say><Hangup/>') : twiml('<Say>Hi!</Say>'));
    const call = await twilio.ended(await placeCall({ MachineDetection: 'DetectMessageEnd' }));
    expect(requestsTo('/voice')[0].params).toMatchObject({ AnsweredBy: 'machine_end_beep', MachineDetectionDuration: expect.any(String) });
    expect(saidTexts(call)).toEqual(['Please call us back.']);
    expect((await api('GET', `/Calls/${call.sid}.json`)).body.answered_by).toBe('machine_end_beep');
  });

  it('posts the AsyncAmdStatusCallback while the TwiML runs, with async AMD', async () => {
    twilio.script(CUSTOMER, { answer: 'machine' });
    app.routes['/voice'] = () => twiml('<Pause length="10"/><Hangup/>');
    const call = await twilio.ended(await placeCall({ MachineDetection: 'Enable', AsyncAmd: 'true', AsyncAmdStatusCallback: `${app.url}/amd` }));
    expect(requestsTo('/voice')[0].params.AnsweredBy).toBeUndefined();
    expect(requestsTo('/amd').map((request) => request.params)).toEqual([
      { AccountSid: twilio.account.sid, CallSid: call.sid, AnsweredBy: 'machine_start', MachineDetectionDuration: '2500' },
    ]);
  });

  it.each(['no-answer', 'busy', 'failed'] as const)('ends %s without fetching the Url, with a completed status callback', async (answer) => {
    twilio.script(CUSTOMER, { answer });
    const call = await twilio.ended(await placeCall({ StatusCallback: `${app.url}/status`, Timeout: '20' }));
    expect(call.status).toBe(answer);
    expect(requestsTo('/voice')).toHaveLength(0);
    expect(requestsTo('/status').map((request) => [request.params.CallStatus, request.params.CallDuration])).toEqual([[answer, '0']]);
  });

  it('records the call: RecordingStatusCallback, then the media at RecordingUrl + .wav / .mp3', async () => {
    app.routes['/voice'] = () => twiml('<Say>This call is recorded.</Say>');
    const call = await twilio.ended(await placeCall({ Record: 'true', RecordingStatusCallback: `${app.url}/recording` }));
    const [recording] = requestsTo('/recording');
    expect(recording.params).toMatchObject({ CallSid: call.sid, RecordingStatus: 'completed', RecordingDuration: String(call.duration), RecordingSid: expect.stringMatching(/^RE/) });
    const wav = await fetch(`${recording.params.RecordingUrl}.wav`);
    expect(wav.headers.get('content-type')).toBe('audio/x-wav');
    expect(Buffer.from(await wav.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF');
    expect((await fetch(`${recording.params.RecordingUrl}.mp3`)).headers.get('content-type')).toBe('audio/mpeg');
  });

  it('dials a number, then requests the Dial action with DialCallStatus', async () => {
    twilio.script('+14155550999', { answer: 'busy' });
    app.routes['/voice'] = () => twiml('<Say>Connecting you.</Say><Dial action="/dialed" timeout="20"><Number>+14155550999</Number></Dial>');
    app.routes['/dialed'] = () => twiml('<Say>They are busy.</Say>');
    const call = await twilio.ended(await placeCall());
    expect(call.dials).toEqual([expect.objectContaining({ number: '+14155550999', status: 'busy' })]);
    expect(requestsTo('/dialed')[0].params).toMatchObject({ DialCallStatus: 'busy', DialBridged: 'false' });
    expect(saidTexts(call)).toEqual(['Connecting you.', 'They are busy.']);
  });

  it('rings an unanswered callee for the Dial timeout, then requests the action with DialCallStatus=no-answer and goes on with its answer', async () => {
    twilio.script('+14155550998', { answer: 'no-answer' });
    app.routes['/voice'] = () => twiml('<Dial action="/dialed" method="POST" timeout="45"><Number>+14155550998</Number></Dial>');
    app.routes['/dialed'] = () => twiml('<Say>Nobody answered.</Say>');
    const call = await twilio.ended(await placeCall());
    expect(call.dials).toEqual([expect.objectContaining({ number: '+14155550998', status: 'no-answer' })]);
    expect(requestsTo('/dialed')[0].params).toMatchObject({ CallSid: call.sid, CallStatus: 'in-progress', DialCallStatus: 'no-answer', DialCallDuration: '0', DialBridged: 'false' });
    expect(requestsTo('/dialed')[0].params.DialCallSid).toMatch(/^CA[0-9a-f]{32}$/);
    // 45 simulated seconds of ringing, then about a second to say the line.
    expect(call.duration).toBeGreaterThanOrEqual(45);
    expect(call.duration).toBeLessThan(50);
    expect(saidTexts(call)).toEqual(['Nobody answered.']);
  });

  it('bridges an answering callee, then requests the action with DialCallStatus=completed, how long they talked and DialBridged=true', async () => {
    twilio.script('sip:200@pbx.example.com', { steps: [{ say: 'Front desk, how can I help' }] });
    app.routes['/voice'] = () => twiml('<Dial action="/dialed"><Sip>sip:200@pbx.example.com</Sip></Dial>');
    app.routes['/dialed'] = () => twiml('<Hangup/>');
    const call = await twilio.ended(await placeCall());
    expect(call.dials).toEqual([expect.objectContaining({ noun: 'Sip', number: 'sip:200@pbx.example.com', status: 'completed' })]);
    expect(call.transferredTo).toBe('sip:200@pbx.example.com');
    expect(requestsTo('/dialed')[0].params).toMatchObject({ DialCallStatus: 'completed', DialCallDuration: '3', DialBridged: 'true' });
    expect(call.endedBy).toBe('twiml');
  });

  it('joins a conference muted, and unmutes it through the Participant resource', async () => {
    twilio.script(CUSTOMER, { steps: [{ wait: 3_600_000 }] });
    app.routes['/voice'] = () => twiml(`<Dial><Conference muted="true" statusCallback="${app.url}/conference" statusCallbackEvent="join mute">room-1</Conference></Dial>`);
    const sid = await placeCall();
    const conference = await twilio.waitFor((state) => state.conferences.find((candidate) => candidate.friendlyName === 'room-1'));
    await twilio.waitFor(() => conference.participants.length === 1);
    const listed = await api('GET', '/Conferences.json?FriendlyName=room-1&Status=in-progress');
    expect(listed.body.conferences.map((found: { sid: string }) => found.sid)).toEqual([conference.sid]);
    const unmuted = await api('POST', `/Conferences/${conference.sid}/Participants/${sid}.json`, { Muted: 'false' });
    expect(unmuted.body).toMatchObject({ call_sid: sid, conference_sid: conference.sid, muted: false });
    await api('POST', `/Calls/${sid}.json`, { Status: 'completed' });
    const call = await twilio.ended(sid);
    expect(call.dials[0]).toMatchObject({ conference: 'room-1', muted: true });
    expect(call.mutes).toEqual([{ conferenceSid: conference.sid, muted: false }]);
    expect(requestsTo('/conference').map((request) => [request.params.StatusCallbackEvent, request.params.Muted])).toEqual([
      ['participant-join', 'true'],
      ['participant-unmute', 'false'],
    ]);
  });
});

describe('what we answer is checked', () => {
  it.each([
    ['not XML', () => ({ body: '<Response><Say>oops</Response>' }), 12100],
    ['no Response root', () => ({ body: '<Say>hi</Say>' }), 12100],
    ['an unknown verb', () => ({ body: twiml('<Speak>hi</Speak>') }), 12200],
    ['a Gather without speech input', () => ({ body: twiml('<Gather action="/turn"/>') }), 12200],
    ['a bad actionOnEmptyResult', () => ({ body: twiml('<Gather input="speech" actionOnEmptyResult="yes"/>') }), 13338],
    ['text/html', () => ({ type: 'text/html', body: twiml('<Say>hi</Say>') }), 12300],
    ['a 500', () => ({ status: 500, body: 'boom' }), 11200],
  ])('fails the call on %s', async (_name, reply, code) => {
    app.routes['/voice'] = reply;
    const call = await twilio.ended(await placeCall({ StatusCallback: `${app.url}/status` }));
    expect(call.status).toBe('failed');
    expect(call.errors.map((error) => error.code)).toEqual([code]);
    expect(requestsTo('/status').map((request) => request.params.CallStatus)).toEqual(['failed']);
    expect(twilio.state.fetches[0]).toMatchObject({ purpose: 'url', url: `${app.url}/voice` });
  });
});

describe('the Calls API refuses', () => {
  it.each([
    ['bad credentials', { To: CUSTOMER, From: OUR_NUMBER, Url: 'https://x.example/v' }, 'wrong', 401, 20003],
    ['a To not E.164', { To: '4155550123', From: OUR_NUMBER, Url: 'https://x.example/v' }, null, 400, 21217],
    ['a From not the account’s', { To: CUSTOMER, From: '+14155550100', Url: 'https://x.example/v' }, null, 400, 21210],
    ['no Url nor Twiml', { To: CUSTOMER, From: OUR_NUMBER }, null, 400, 21205],
  ])('%s', async (_name, form, password, status, code) => {
    const created = await api('POST', '/Calls.json', form, password ? `${twilio.account.sid}:${password}` : undefined);
    expect(created).toEqual({ status, body: expect.objectContaining({ code, status, more_info: `https://www.twilio.com/docs/errors/${code}` }) });
    expect(twilio.state.calls).toHaveLength(0);
  });
});

describe('an inbound call', () => {
  it('requests the Voice URL with Direction=inbound and CallStatus=ringing, then plays its TwiML', async () => {
    app.routes['/inbound'] = () => twiml('<Gather input="speech" action="/turn"><Say>Thanks for calling.</Say></Gather>');
    app.routes['/turn'] = (request) => twiml(`<Say>You said ${request.params.SpeechResult}.</Say><Hangup/>`);
    const started = twilio.incomingCall({ to: OUR_NUMBER, from: CUSTOMER, voiceUrl: `${app.url}/inbound`, script: { steps: [{ say: 'What are your hours' }] } });
    const call = await twilio.ended(started.sid);
    expect(requestsTo('/inbound')[0].params).toMatchObject({ CallSid: call.sid, Direction: 'inbound', CallStatus: 'ringing', From: CUSTOMER, To: OUR_NUMBER });
    expect(requestsTo('/turn')[0].params).toMatchObject({ CallStatus: 'in-progress', SpeechResult: 'What are your hours' });
    expect(call).toMatchObject({ direction: 'inbound', status: 'completed', statusHistory: ['ringing', 'in-progress', 'completed'] });
    expect(saidTexts(call)).toEqual(['Thanks for calling.', 'You said What are your hours.']);
  });

  it('refuses a number the account does not have', () => {
    expect(() => twilio.incomingCall({ to: '+14155550100', from: CUSTOMER, voiceUrl: `${app.url}/inbound` })).toThrow(/not a number of account/);
  });
});

describe('signatures', () => {
  it('signs every request to our URLs so that verifyTwilioSignature accepts it, and only with the account’s token', async () => {
    twilio.script(CUSTOMER, { steps: [{ say: 'Hi' }] });
    app.routes['/voice'] = () => twiml('<Gather input="speech" action="/turn?step=1"/>');
    app.routes['/turn'] = () => twiml('<Hangup/>');
    await twilio.ended(await placeCall({ StatusCallback: `${app.url}/status?tenant=a`, StatusCallbackEvent: 'answered completed' }));
    expect(app.requests.map((request) => request.path).sort()).toEqual(['/status', '/status', '/turn', '/voice']);
    for (const request of app.requests) {
      expect(verifyTwilioSignature(request, twilio.account.authToken)).toBe(true);
      expect(verifyTwilioSignature(request, 'another-token')).toBe(false);
    }
  });

  it('builds signed and badly signed requests for driver tests', () => {
    const url = 'https://switchboard.example.com/hooks/calls/abc/gather';
    const params = { CallSid: 'CA' + '0'.repeat(32), SpeechResult: 'yes' };
    const asRequest = (hook: { url: string; headers: Record<string, string>; body: string }): InboundRequest => ({
      method: 'POST',
      url: hook.url,
      headers: hook.headers,
      rawBody: Buffer.from(hook.body),
      body: Object.fromEntries(new URLSearchParams(hook.body)),
      query: {},
    });
    expect(verifyTwilioSignature(asRequest(twilio.signedCallback(url, params)), twilio.account.authToken)).toBe(true);
    expect(verifyTwilioSignature(asRequest(twilio.badlySignedCallback(url, params)), twilio.account.authToken)).toBe(false);
  });
});
