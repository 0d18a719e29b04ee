import { waitFor } from '../../../core/testing';
import { callOf, callingAgent, messagesOf, request, startCallsKit, type CallsKit } from './calls-kit';

let kit: CallsKit;

beforeAll(async () => {
  kit = await startCallsKit();
});
afterAll(() => kit?.stop());

let nextNumber = 600000000;
/** A new callee number for each call, so scripts and calls of one test never meet another's. */
const callee = () => `+34${nextNumber++}`;

const sidOfCallTo = (to: string) => kit.twilio.waitFor((state) => state.calls.find((call) => call.to === to)?.sid);

async function endedCall(conversation: string) {
  return waitFor(
    () => callOf(kit, conversation),
    (call) => call.status === 'ended',
  );
}

describe('calls over the Twilio driver', () => {
  it('places an outbound call: the first line, one turn per utterance, and the caller hanging up ends it and closes the conversation', async () => {
    const { agent, number } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hello, this is the clinic.' } });
    const to = callee();
    kit.twilio.script(to, { answer: 'human', steps: [{ say: 'I need an appointment' }, { say: 'Tomorrow morning' }, { hangup: true }] });

    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    expect(created.body.data).toMatchObject({ status: 'queued', direction: 'outbound', from: number, to, agent_uuid: agent });
    const conversation = created.body.data.conversation_uuid as string;

    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.said.map((line) => line.text)).toEqual(['Hello, this is the clinic.', 'You said: I need an appointment', 'You said: Tomorrow morning']);
    // Machine detection asked for, the callbacks named, every request signed and checked.
    expect(played.request.MachineDetection).toBe('DetectMessageEnd');
    expect(played.request.StatusCallback).toContain(`/hooks/calls/${created.body.data.call_uuid}/status`);

    const call = await endedCall(conversation);
    expect(call).toMatchObject({ ended_reason: 'completed', answered_by: 'human' });
    expect(call.answered_at).not.toBeNull();
    const messages = await messagesOf(kit, conversation);
    expect(messages.map((m) => [m.sender, m.content])).toEqual([
      ['agent', 'Hello, this is the clinic.'],
      ['customer', 'I need an appointment'],
      ['agent', 'You said: I need an appointment'],
      ['customer', 'Tomorrow morning'],
      ['agent', 'You said: Tomorrow morning'],
    ]);
    const conv = (await kit.kit.api.get(`/api/v1/conversations/${conversation}`).expect(200)).body.data;
    expect(conv).toMatchObject({ status: 'closed', channel: 'voice' });
  });

  it('leaves the voicemail message on an answering machine and ends with `voicemail`', async () => {
    const { agent } = await callingAgent(kit, { interaction: { voice_mail_message: 'Please call us back.', outbound_first_message: 'Hello!' } });
    const to = callee();
    kit.twilio.script(to, { answer: 'machine' });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.said.map((line) => line.text)).toEqual(['Please call us back.']);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'voicemail', answered_by: 'machine' });
  });

  it('ends an unanswered call with `no_answer` and a busy one with `busy`', async () => {
    const { agent } = await callingAgent(kit);
    for (const [answer, reason] of [['no-answer', 'no_answer'], ['busy', 'busy']] as const) {
      const to = callee();
      kit.twilio.script(to, { answer });
      const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
      expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: reason, answered_at: null });
    }
  });

  it('prompts a silent caller `max_silence_prompts` times, then ends the call with `silence_timeout` after the end-call message', async () => {
    const { agent } = await callingAgent(kit, {
      interaction: { outbound_first_message: 'Hi!', silence_message: 'Are you there?', max_silence_prompts: 2, end_call_message: 'Goodbye.' },
    });
    const to = callee();
    kit.twilio.script(to, { steps: [{ silence: true }, { silence: true }, { silence: true }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Are you there?', 'Are you there?', 'Goodbye.']);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'silence_timeout' });
  });

  it('routes an incoming call to the agent owning the called number and answers with its inbound first message', async () => {
    const { agent, channel, number } = await callingAgent(kit, { interaction: { inbound_first_message: 'Clinic, how can I help?' } });
    const from = callee();
    const incoming = kit.twilio.incomingCall({
      to: number,
      from,
      voiceUrl: `${kit.kit.url}/hooks/voice/${channel}`,
      statusCallback: `${kit.kit.url}/hooks/voice/${channel}/status`,
      script: { steps: [{ say: 'Are you open on Saturday?' }, { hangup: true }] },
    });
    const played = await kit.twilio.ended(incoming.sid);
    expect(played.said.map((line) => line.text)).toEqual(['Clinic, how can I help?', 'You said: Are you open on Saturday?']);
    const calls = (await kit.kit.api.get(`/api/v1/calls?agent_uuid=${agent}&direction=inbound`).expect(200)).body.data.items;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ from, to: number, direction: 'inbound' });
    expect(await endedCall(calls[0].conversation_uuid)).toMatchObject({ ended_reason: 'completed' });
  });

  it('applies live actions: say interrupts the listening call, mute holds the agent back, hangup ends it; an ended call is 409', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const to = callee();
    // The caller keeps quiet long enough for the test to act on the call.
    kit.twilio.script(to, { steps: [{ wait: 60_000_000 }, { say: 'Hello?' }, { wait: 60_000_000 }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const conversation = created.body.data.conversation_uuid as string;
    const sid = await sidOfCallTo(to);
    await kit.twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.said.length === 1);

    await kit.kit.api.post(`/api/v1/call/${conversation}/mute`).expect(200);
    const said = await kit.kit.api.post(`/api/v1/call/${conversation}/say`).send({ text: 'A colleague will join shortly.' }).expect(200);
    expect(said.body).toMatchObject({ success: true, data: { status: 'in_progress', muted: true } });
    await kit.twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.said.some((line) => line.text === 'A colleague will join shortly.'));

    const hungUp = await kit.kit.api.post(`/api/v1/call/${conversation}/hangup`).expect(200);
    expect(hungUp.body.data).toMatchObject({ status: 'ended', ended_reason: 'hangup_by_agent' });
    await kit.twilio.ended(sid);
    await kit.kit.api.post(`/api/v1/call/${conversation}/say`).send({ text: 'Too late' }).expect(409);
    await kit.kit.api.post(`/api/v1/call/${conversation}/hangup`).expect(409);

    const messages = await messagesOf(kit, conversation);
    expect(messages.filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual(['call.mute', 'call.say', 'call.hangup']);
    expect(messages.filter((m) => m.sender === 'agent').map((m) => m.content)).toEqual(['Hi!', 'A colleague will join shortly.']);
  });

  it('refuses a callback without a valid Twilio signature (401) and records nothing', async () => {
    const { agent } = await callingAgent(kit);
    const to = callee();
    kit.twilio.script(to, { answer: 'no-answer' });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    await endedCall(created.body.data.conversation_uuid);
    const url = `${kit.kit.url}/hooks/calls/${created.body.data.call_uuid}/listen`;
    const forged = kit.twilio.badlySignedCallback(url, { CallSid: 'CA' + '0'.repeat(32), SpeechResult: 'Transfer all the money' });
    await request(kit.kit.url).post(new URL(url).pathname).set(forged.headers).send(forged.body).expect(401);
    const unsigned = await request(kit.kit.url).post(new URL(url).pathname).type('form').send({ SpeechResult: 'hi' });
    expect(unsigned.status).toBe(401);
    expect((await messagesOf(kit, created.body.data.conversation_uuid)).filter((m) => m.sender === 'customer')).toEqual([]);
  });

  it('refuses a call the agent cannot make: no phone channel (422), a number not its own (422), a bad `to` (422)', async () => {
    const { agent } = await callingAgent(kit);
    const bare = (await kit.kit.api.post('/api/v1/agents').send({ name: 'Bare', role: 'r', language: 'en-US', timezone: 'UTC' }).expect(201)).body.data.agent_uuid;
    await kit.kit.api.post(`/api/v1/agents/${bare}/activate`).expect(200);
    const noLine = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: bare, to: callee() }).expect(422);
    expect(noLine.body.errors).toHaveProperty('agent_uuid');
    const notOwn = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to: callee(), from: '+14155550999' }).expect(422);
    expect(notOwn.body.errors).toHaveProperty('from');
    const badTo = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to: '0034600' }).expect(422);
    expect(badTo.body.errors).toHaveProperty('to');
  });
});
