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
    // Each live update cuts the Gather holding a step: enough steps that the caller is still there for every action.
    kit.twilio.script(to, { steps: [{ wait: 60_000_000 }, { say: 'Hello?' }, { wait: 60_000_000 }, { wait: 60_000_000 }, { wait: 60_000_000 }] });
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

describe('rules and settings acting on a call', () => {
  const byKind = (reply: Record<string, unknown>, guard: { rule_uuid: string | null }) => (req: { body: any }) =>
    req.body?.response_format?.json_schema?.name === 'guard_check' ? { json: guard } : reply;

  it('a hangup that Twilio refuses because the call already ended there (21220) still ends the call', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const to = callee();
    kit.twilio.script(to, { steps: [{ wait: 60_000_000 }] });
    const conversation = (await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201)).body.data.conversation_uuid as string;
    const sid = await sidOfCallTo(to);
    await kit.twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.said.length === 1);
    // The caller hung up at Twilio a moment before: Twilio refuses the update, and its status callback has not reached us yet.
    kit.twilio.state.failures.push({ on: `POST /2010-04-01/Accounts/${kit.twilio.account.sid}/Calls/${sid}`, reply: { status: 400, body: { code: 21220, message: 'Call is not in-progress. Cannot redirect.', status: 400 } } });
    const hungUp = await kit.kit.api.post(`/api/v1/call/${conversation}/hangup`).expect(200);
    expect(hungUp.body.data).toMatchObject({ status: 'ended', ended_reason: 'hangup_by_agent' });
    expect(kit.twilio.state.failures).toEqual([]);
    // Another refusal is still a 502: only "not in progress" means the hangup already holds.
    const { agent: other } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const second = callee();
    kit.twilio.script(second, { steps: [{ wait: 60_000_000 }] });
    const conversation2 = (await kit.kit.api.post('/api/v1/call').send({ agent_uuid: other, to: second }).expect(201)).body.data.conversation_uuid as string;
    const sid2 = await sidOfCallTo(second);
    await kit.twilio.waitFor((state) => state.calls.find((call) => call.sid === sid2)?.said.length === 1);
    kit.twilio.state.failures.push({ on: `/Calls/${sid2}`, reply: { status: 400, body: { code: 20001, message: 'Bad request', status: 400 } } });
    await kit.kit.api.post(`/api/v1/call/${conversation2}/hangup`).expect(502);
    kit.twilio.reset();
  });

  it('a guard rule ending the conversation says its line, then hangs up (`hangup_by_agent`)', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    await kit.kit.api
      .post(`/api/v1/agents/${agent}/guard-rules`)
      .send({ name: 'Abuse', when_condition: 'The caller is abusive', then_action: 'end_conversation', say_before_end: 'This call has ended.', selected_channels: ['phone'] })
      .expect((res) => expect([200, 201]).toContain(res.status));
    const rule = (await kit.kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data.guard_rules[0];
    const script = byKind({ content: 'Sure, happy to help!' }, { rule_uuid: rule.uuid });
    kit.model.reply(script, script);
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'You are useless' }, { say: 'Hello?' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'This call has ended.']);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'hangup_by_agent' });
  });

  it('a routing rule the model chooses transfers the call to its number after its line (`transferred`)', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const billing = callee();
    await kit.kit.api
      .post(`/api/v1/agents/${agent}/routing-rules`)
      .send({ department_name: 'Billing', phrases: ['invoice'], destination_type: 'phone_number', destination: billing, voice_response: 'Transferring you to billing.', priority: 1 })
      .expect((res) => expect([200, 201]).toContain(res.status));
    const rule = (await kit.kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data.routing_rules[0];
    kit.model.reply({ toolCalls: [{ name: 'transfer', arguments: { rule_uuid: rule.uuid } }] });
    kit.twilio.script(billing, { steps: [{ hangup: true }] });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'A question about my invoice' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Transferring you to billing.']);
    expect(played.dials.map((dial) => dial.number)).toEqual([billing]);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'transferred' });
  });

  it('past `max_call_duration_seconds`, the next turn says the duration message and ends the call (`max_duration`)', async () => {
    const { agent } = await callingAgent(kit, {
      interaction: { outbound_first_message: 'Hi!' },
      call_behavior: { max_call_duration_seconds: 60, max_call_duration_message: 'We are out of time, goodbye.' },
    });
    const to = callee();
    kit.twilio.script(to, { steps: [{ wait: 3_000_000 }, { say: 'One more thing' }, { say: 'Hello?' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const sid = await sidOfCallTo(to);
    await kit.twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.said.length === 1);
    // The call has lasted a minute, as far as the platform can tell.
    await kit.kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute("update calls set answered_at = now() - interval '61 seconds' where uuid = ?", [created.body.data.call_uuid]);
    const played = await kit.twilio.ended(sid);
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'We are out of time, goodbye.']);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'max_duration' });
  });

  it('with `customer_speak_first` the agent waits for the caller; it speaks with the voice and language of its `voice_profile`', async () => {
    const { agent } = await callingAgent(kit, {
      interaction: { customer_speak_first: true, outbound_first_message: 'Never said' },
      voice_profile: { language: 'es-ES', voice_name: 'Polly.Lucia' },
    });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'Hola' }, { hangup: true }] });
    await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.said).toEqual([expect.objectContaining({ text: 'You said: Hola', voice: 'Polly.Lucia', language: 'es-ES' })]);
    expect(played.gathers[0]).toMatchObject({ language: 'es-ES', timeout: 10 });
  });

  it('at the deadline of `max_call_duration_seconds`, a call still listening hears the duration message and is hung up', async () => {
    const { agent } = await callingAgent(kit, {
      interaction: { outbound_first_message: 'Hi!' },
      call_behavior: { max_call_duration_seconds: 60, max_call_duration_message: 'Time is up, goodbye.' },
    });
    const to = callee();
    kit.twilio.script(to, { steps: [{ wait: 60_000_000 }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const sid = await sidOfCallTo(to);
    await kit.twilio.waitFor((state) => state.calls.find((call) => call.sid === sid)?.said.length === 1);
    // The deadline the call's answer scheduled, due now rather than in a minute.
    await kit.kit.kernel.orm.em
      .fork()
      .transactional((em) => kit.kit.kernel.bus.outbox.insert(em as never, { topic: 'calls.deadline', payload: { call_uuid: created.body.data.call_uuid }, tenantUuid: kit.kit.tenant.uuid }));
    const played = await kit.twilio.ended(sid);
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Time is up, goodbye.']);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'max_duration' });
    const agentLines = (await messagesOf(kit, created.body.data.conversation_uuid)).filter((m) => m.sender === 'agent').map((m) => m.content);
    expect(agentLines).toEqual(['Hi!', 'Time is up, goodbye.']);
  });

  it('with `audio_recording` the call is recorded and its recording served; the call’s session closes at its end', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' }, call_behavior: { audio_recording: true } });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'Hello' }, { hangup: true }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.request.Record).toBe('true');
    const conversation = created.body.data.conversation_uuid as string;
    const recorded = await waitFor(
      () => callOf(kit, conversation),
      (call) => call.has_recording === true,
    );
    expect(recorded.status).toBe('ended');
    const audio = await kit.kit.api.get(`/api/v1/calls/${conversation}/recording`).buffer(true).expect(200);
    expect(audio.headers['content-type']).toBe('audio/wav');
    expect(Buffer.from(audio.body).subarray(0, 4).toString('latin1')).toBe('RIFF');
    const sessions = (await kit.kit.api.get(`/api/v1/sessions?conversation_uuid=${conversation}`).expect(200)).body.data.items;
    expect(sessions.map((session: { status: string; channel: string }) => [session.status, session.channel])).toEqual([['closed', 'voice']]);
  });
});
