import { coreServices, definePlugin } from '../../../core';
import { waitFor } from '../../../core/testing';
import { DEFAULT_FALLBACK_LINE } from '../../../plugins/calls/engine/transfers';
import { callOf, callingAgent, messagesOf, request, startCallsKit, type CallsKit } from './calls-kit';

/**
 * Transfers by routing rules (`transfer_type` cold or warm, `destination_type` phone_number
 * or extension, an unknown extension), what happens when nobody takes the transfer (the
 * `<Dial action>` callback), and mute through the call's conference leg, against the
 * Twilio-shaped server: what it dials, what the callee hears first, what the caller hears
 * after, what it was asked of the conference participant.
 */

let kit: CallsKit;

/** What the call and its conversation published (`call_status`, `conversation_status` agent webhooks), by conversation. */
const published: Array<{ topic: string; conversation: string; status: string; reason: string | null }> = [];
const statusProbe = definePlugin({
  id: 'call-status-probe',
  dependsOn: ['calls'],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume({ name: 'call-status-probe', topics: ['call.status', 'conversation.opened', 'conversation.transferred', 'conversation.closed'] }, async (message) => {
      const payload = message.payload as Record<string, any>;
      const call = message.topic === 'call.status';
      published.push({ topic: message.topic, conversation: call ? payload.conversation_uuid : payload.uuid, status: payload.status, reason: call ? payload.ended_reason : (payload.reason ?? null) });
    });
  },
});
const publishedFor = (conversation: string, topic: 'call' | 'conversation') =>
  published.filter((event) => event.conversation === conversation && event.topic.startsWith(`${topic}.`)).map(({ status, reason }) => ({ status, reason }));
/** Once the conversation's `closed` and the call's `ended` have come through the bus. */
const settled = (conversation: string) =>
  waitFor(
    () => published,
    () => publishedFor(conversation, 'conversation').some((event) => event.status === 'closed') && publishedFor(conversation, 'call').some((event) => event.status === 'ended'),
  );

beforeAll(async () => {
  kit = await startCallsKit({ plugins: [statusProbe] });
});
afterAll(() => kit?.stop());

let nextNumber = 611000000;
const callee = () => `+34${nextNumber++}`;
let nextExtension = 301;

const sidOfCallTo = (to: string) => kit.twilio.waitFor((state) => state.calls.find((call) => call.to === to)?.sid);
const endedCall = (conversation: string) =>
  waitFor(
    () => callOf(kit, conversation),
    (call) => call.status === 'ended',
  );

/** A routing rule on the agent that the model then chooses for the caller's first utterance. */
async function routeFirstUtterance(agent: string, rule: Record<string, unknown>): Promise<void> {
  await kit.kit.api
    .post(`/api/v1/agents/${agent}/routing-rules`)
    .send({ department_name: 'Billing', phrases: ['invoice'], voice_response: 'Transferring you to billing.', priority: 1, ...rule })
    .expect((res) => expect([200, 201]).toContain(res.status));
  const created = (await kit.kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data.routing_rules[0];
  kit.model.reply({ toolCalls: [{ name: 'transfer', arguments: { rule_uuid: created.uuid } }] });
}

async function extensionConnector(extension: string): Promise<void> {
  const created = await kit.kit.api
    .post('/api/v1/pbx_extension_connectors')
    .send({ name: 'Front desk', connection_type: 'udp', pbx: { registrar_server: 'pbx.example.com', port: 5060, username_extension: extension } });
  expect([created.status, created.body.errors]).toEqual([201, undefined]);
}

describe('routing rules hand calls over by `transfer_type` and `destination_type`', () => {
  it('cold (`transfer_type: cold`): the number is dialled bare, nothing is played to the callee first', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const billing = callee();
    await routeFirstUtterance(agent, { destination_type: 'phone_number', destination: billing, transfer_type: 'cold' });
    kit.twilio.script(billing, { steps: [{ say: 'Billing, hello' }] });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'A question about my invoice' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Transferring you to billing.']);
    expect(played.dials).toEqual([expect.objectContaining({ noun: 'Number', number: billing, status: 'completed', whisper: null })]);
    // The Dial reports its end to the call's `dial` callback; answered and over, the call ends with it.
    const dialUrl = `${kit.kit.url}/hooks/calls/${created.body.data.call_uuid}/dial`;
    expect(played.documents.at(-2)!.body).toContain(`<Dial action="${dialUrl}" method="POST"><Number>${billing}</Number></Dial>`);
    expect(kit.twilio.state.fetches.filter((fetch) => fetch.purpose === 'whisper')).toEqual([]);
    const action = kit.twilio.state.fetches.find((fetch) => fetch.purpose === 'dial-action' && fetch.callSid === played.sid)!;
    expect(action).toMatchObject({ url: dialUrl, status: 200, params: expect.objectContaining({ DialCallStatus: 'completed', DialBridged: 'true' }) });
    expect(played.documents.at(-1)!.body).toContain('<Hangup/>');
    const conversation = created.body.data.conversation_uuid as string;
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'transferred' });
    const events = (await messagesOf(kit, conversation)).filter((m) => m.message_type === 'event').map((m) => m.content);
    expect(events).toEqual([`call.transfer cold ${billing}`]);
    await settled(conversation);
    expect(publishedFor(conversation, 'conversation')).toEqual(
      expect.arrayContaining([
        { status: 'transferred', reason: expect.stringMatching(/^routing:/) },
        { status: 'closed', reason: 'call_transferred' },
      ]),
    );
    expect(publishedFor(conversation, 'conversation')).toHaveLength(3);
    expect(publishedFor(conversation, 'call').filter((event) => event.status === 'ended')).toEqual([{ status: 'ended', reason: 'transferred' }]);
  });

  it('warm (`transfer_type: warm`): the callee hears `transfer_config.announcement` in the agent’s voice before the caller is connected', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' }, voice_profile: { language: 'en-GB', voice_name: 'Polly.Amy' } });
    const billing = callee();
    await routeFirstUtterance(agent, {
      destination_type: 'phone_number',
      destination: billing,
      transfer_type: 'warm',
      transfer_config: { announcement: 'A customer with a question about an invoice & a refund.' },
    });
    kit.twilio.script(billing, { steps: [{ say: 'Billing, hello' }] });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'A question about my invoice' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    // The caller hears only the agent's lines; the announcement went to the callee's leg alone.
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Transferring you to billing.']);
    const [dial] = played.dials;
    expect(dial).toMatchObject({ noun: 'Number', number: billing, status: 'completed' });
    expect(dial.whisper!.said).toEqual([{ text: 'A customer with a question about an invoice & a refund.', voice: 'Polly.Amy', language: 'en-GB', inGather: false }]);
    expect(dial.whisper!.url).toContain(`/hooks/calls/${created.body.data.call_uuid}/announce?text=`);
    const whisper = kit.twilio.state.fetches.find((fetch) => fetch.purpose === 'whisper' && fetch.params.ParentCallSid === played.sid)!;
    expect(whisper).toMatchObject({ status: 200, method: 'POST' });
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'transferred' });

    // The announce URL is the provider's alone: a request not signed with the account's token is refused.
    const forged = kit.twilio.badlySignedCallback(whisper.url, whisper.params);
    const url = new URL(whisper.url);
    await request(kit.kit.url)
      .post(url.pathname + url.search)
      .set(forged.headers)
      .send(forged.body)
      .expect(401);
  });

  it('`destination_type: extension` dials the tenant’s PBX extension connector as SIP at its registrar (warm: announced there too)', async () => {
    const extension = String(nextExtension++);
    await extensionConnector(extension);
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    await routeFirstUtterance(agent, { department_name: 'Front desk', destination_type: 'extension', destination: extension, transfer_type: 'warm_transfer' });
    const uri = `sip:${extension}@pbx.example.com:5060;transport=udp`;
    kit.twilio.script(uri, { steps: [{ say: 'Front desk' }] });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'Put me through to the front desk' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    expect(played.dials).toEqual([expect.objectContaining({ noun: 'Sip', number: uri, status: 'completed' })]);
    expect(played.documents.at(-2)!.body).toMatch(new RegExp(`<Dial action="[^"]+/dial" method="POST"><Sip url="[^"]+/announce\\?text=[^"]+" method="POST">${uri.replace(/[.;]/g, '\\$&')}</Sip></Dial>`));
    // No `announcement` configured: the callee is told who calls and for what.
    expect(played.dials[0].whisper!.said.map((line) => line.text)).toEqual([expect.stringMatching(new RegExp(`^Transferred call from \\${to} for Front desk`))]);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'transferred' });
    const events = (await messagesOf(kit, created.body.data.conversation_uuid)).filter((m) => m.message_type === 'event').map((m) => m.content);
    expect(events).toEqual([`call.transfer warm extension ${extension} (Front desk) at ${uri}`]);
  });

  it('`destination_type: agent` dials the first number of that agent that takes calls', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const { agent: colleague, number } = await callingAgent(kit);
    await routeFirstUtterance(agent, { destination_type: 'agent', destination: '', destination_agent_uuid: colleague });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'Can I talk to your colleague?' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    expect(played.dials).toEqual([expect.objectContaining({ noun: 'Number', number, status: 'completed', whisper: null })]);
    expect(await endedCall(created.body.data.conversation_uuid)).toMatchObject({ ended_reason: 'transferred' });
  });

  it('an extension no connector of the tenant names: the transfer fails with its reason on the conversation, `voice_on_error` is said, and the agent listens again', async () => {
    const extension = '999';
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    await routeFirstUtterance(agent, { destination_type: 'extension', destination: extension, voice_on_error: 'Sorry, that line is not available.' });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'Put me through to extension' }, { say: 'Hello?' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    expect(played.dials).toEqual([]);
    // The conversation is open again: the caller's next words are a turn the model answers.
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Transferring you to billing.', 'Sorry, that line is not available.', 'You said: Hello?']);
    expect(played.endedBy).toBe('caller');
    const conversation = created.body.data.conversation_uuid as string;
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'completed' });
    const messages = await messagesOf(kit, conversation);
    expect(messages.filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual([
      `call.transfer_failed: extension ${extension} is not a PBX extension connector of this tenant`,
    ]);
    expect(messages.filter((m) => m.sender === 'agent' && m.message_type === 'text').map((m) => m.content)).toEqual([
      'Hi!',
      'Transferring you to billing.',
      'Sorry, that line is not available.',
      'You said: Hello?',
    ]);
  });
});

describe('a transfer nobody takes comes back to the agent (`<Dial action>`)', () => {
  it('no answer within `transfer_config.timeout_seconds`: `call.transfer_failed: no_answer`, the conversation open again, `transfer_config.fallback_message` said, listening again', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const billing = callee();
    await routeFirstUtterance(agent, {
      destination_type: 'phone_number',
      destination: billing,
      voice_on_error: 'Not this one.',
      transfer_config: { fallback_message: 'Nobody in billing is free right now.', timeout_seconds: 12 },
    });
    kit.twilio.script(billing, { answer: 'no-answer' });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'A question about my invoice' }, { say: 'Never mind then' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const conversation = created.body.data.conversation_uuid as string;
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    expect(played.dials).toEqual([expect.objectContaining({ number: billing, status: 'no-answer', attributes: expect.objectContaining({ timeout: '12' }) })]);
    const action = kit.twilio.state.fetches.find((fetch) => fetch.purpose === 'dial-action' && fetch.callSid === played.sid)!;
    expect(action).toMatchObject({ status: 200, params: expect.objectContaining({ DialCallStatus: 'no-answer', DialBridged: 'false' }) });
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Transferring you to billing.', 'Nobody in billing is free right now.', 'You said: Never mind then']);
    expect(played.transferredTo).toBeNull();

    // The caller hung up after the agent had taken the call back: an ordinary end, not a transfer.
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'completed' });
    const messages = await messagesOf(kit, conversation);
    expect(messages.filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual([`call.transfer cold ${billing}`, 'call.transfer_failed: no_answer']);
    expect(messages.filter((m) => m.sender === 'agent' && m.message_type === 'text').map((m) => m.content)).toEqual([
      'Hi!',
      'Transferring you to billing.',
      'Nobody in billing is free right now.',
      'You said: Never mind then',
    ]);

    // The conversation went `transferred`, back to `open`, then closed with the call; the call ended once, never before it was over.
    await settled(conversation);
    expect(publishedFor(conversation, 'conversation')).toEqual(
      expect.arrayContaining([
        { status: 'open', reason: null },
        { status: 'transferred', reason: expect.stringMatching(/^routing:/) },
        { status: 'open', reason: 'call_transfer_failed' },
        { status: 'closed', reason: 'call_completed' },
      ]),
    );
    expect(publishedFor(conversation, 'conversation')).toHaveLength(4);
    expect(publishedFor(conversation, 'call').filter((event) => event.status === 'ended')).toEqual([{ status: 'ended', reason: 'completed' }]);
    // Each state once (`ringing` may be passed over when the answer comes first): taking the call back publishes no state of its own.
    const states = publishedFor(conversation, 'call').map((event) => event.status);
    expect(states).toEqual(expect.arrayContaining(['queued', 'in_progress', 'ended']));
    expect(new Set(states).size).toBe(states.length);
  });

  it.each([
    ['busy', { voice_on_error: 'Billing is on another call, sorry.' }, 'Billing is on another call, sorry.', 'busy'],
    ['failed', {}, DEFAULT_FALLBACK_LINE, 'failed'],
  ] as const)('a dial that ends %s: the rule’s line (else the default) and the agent listens again', async (answer, rule, line, reason) => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const billing = callee();
    await routeFirstUtterance(agent, { destination_type: 'phone_number', destination: billing, ...rule });
    kit.twilio.script(billing, { answer });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'A question about my invoice' }, { say: 'Fine' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const played = await kit.twilio.ended(await sidOfCallTo(to));
    expect(played.errors).toEqual([]);
    expect(played.dials.map((dial) => dial.status)).toEqual([answer]);
    expect(played.said.map((said) => said.text)).toEqual(['Hi!', 'Transferring you to billing.', line, 'You said: Fine']);
    const conversation = created.body.data.conversation_uuid as string;
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'completed' });
    expect((await messagesOf(kit, conversation)).filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual([`call.transfer cold ${billing}`, `call.transfer_failed: ${reason}`]);
  });

  it('while the callee rings the call is in progress and its conversation `transferred`; a dial callback not signed by Twilio is 401 and changes nothing', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const billing = callee();
    // 600 simulated seconds of ringing: long enough (0.6 s) to act while the transfer waits.
    await routeFirstUtterance(agent, { destination_type: 'phone_number', destination: billing, transfer_config: { timeout_seconds: 600 } });
    kit.twilio.script(billing, { answer: 'no-answer' });
    const to = callee();
    kit.twilio.script(to, { steps: [{ say: 'A question about my invoice' }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const conversation = created.body.data.conversation_uuid as string;
    const sid = await sidOfCallTo(to);
    await kit.twilio.waitFor(() => kit.twilio.call(sid).current === 'Dial');

    expect(await callOf(kit, conversation)).toMatchObject({ status: 'in_progress', ended_reason: null });
    expect((await kit.kit.api.get(`/api/v1/conversations/${conversation}`).expect(200)).body.data.status).toBe('transferred');
    // Live actions wait for the transfer's outcome.
    await kit.kit.api.post(`/api/v1/call/${conversation}/say`).send({ text: 'Still there?' }).expect(409);

    const url = `${kit.kit.url}/hooks/calls/${created.body.data.call_uuid}/dial`;
    const params = kit.twilio.webhookParams(sid, { DialCallStatus: 'busy', DialCallSid: 'CA' + '1'.repeat(32), DialCallDuration: '0', DialBridged: 'false' });
    const forged = kit.twilio.badlySignedCallback(url, params);
    await request(kit.kit.url).post(new URL(url).pathname).set(forged.headers).send(forged.body).expect(401);
    // Signed, but without a DialCallStatus: unreadable (400), nothing recorded either.
    const unreadable = kit.twilio.signedCallback(url, { ...params, DialCallStatus: '' });
    await request(kit.kit.url).post(new URL(url).pathname).set(unreadable.headers).send(unreadable.body).expect(400);
    expect((await messagesOf(kit, conversation)).filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual([`call.transfer cold ${billing}`]);

    const played = await kit.twilio.ended(sid);
    expect(played.errors).toEqual([]);
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', 'Transferring you to billing.', DEFAULT_FALLBACK_LINE]);
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'completed' });
    // Twilio's own callback, not the forged `busy`, decided.
    expect((await messagesOf(kit, conversation)).filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual([`call.transfer cold ${billing}`, 'call.transfer_failed: no_answer']);
  });
});

describe('mute through a conference leg', () => {
  it('mute moves the call into its own conference and mutes its participant; a say while muted returns there muted; unmute sets Muted=false and listens again', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const to = callee();
    const long = { wait: 60_000_000 };
    kit.twilio.script(to, { steps: [long, long, long, { say: 'Are you still there?' }, long] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const conversation = created.body.data.conversation_uuid as string;
    const room = `switchboard-${created.body.data.call_uuid}`;
    const sid = await sidOfCallTo(to);
    const call = () => kit.twilio.call(sid);
    await kit.twilio.waitFor(() => call().said.length === 1);

    const muted = await kit.kit.api.post(`/api/v1/call/${conversation}/mute`).expect(200);
    expect(muted.body.data).toMatchObject({ muted: true, status: 'in_progress' });
    const conference = kit.twilio.state.conferences.find((candidate) => candidate.friendlyName === room)!;
    expect(conference).toBeDefined();
    expect(conference.participants).toEqual([expect.objectContaining({ callSid: sid, muted: true, status: 'connected' })]);
    expect(call().mutes).toEqual([{ conferenceSid: conference.sid, muted: true }]);
    expect(call().dials.at(-1)).toMatchObject({ noun: 'Conference', conference: room, muted: false });
    expect(call().dials.at(-1)!.attributes).toMatchObject({ beep: 'false', endConferenceOnExit: 'true' });

    // Said while muted: the caller hears it, and the call goes back to its room, muted again.
    await kit.kit.api.post(`/api/v1/call/${conversation}/say`).send({ text: 'A colleague will join shortly.' }).expect(200);
    await kit.twilio.waitFor(() => call().mutes.length === 2);
    expect(call().said.map((line) => line.text)).toEqual(['Hi!', 'A colleague will join shortly.']);
    const second = kit.twilio.state.conferences.filter((candidate) => candidate.friendlyName === room);
    expect(second.map((c) => c.status)).toEqual(['completed', 'in-progress']);
    expect(call().mutes[1]).toEqual({ conferenceSid: second[1].sid, muted: true });

    const unmuted = await kit.kit.api.post(`/api/v1/call/${conversation}/unmute`).expect(200);
    expect(unmuted.body.data).toMatchObject({ muted: false });
    expect(call().mutes[2]).toEqual({ conferenceSid: second[1].sid, muted: false });
    expect(second[1].events.map((event) => event.event)).toEqual(expect.arrayContaining(['participant-mute', 'participant-unmute']));
    // Listening again: the caller's next words get the agent's answer.
    await kit.twilio.waitFor(() => call().said.some((line) => line.text === 'You said: Are you still there?'));

    await kit.kit.api.post(`/api/v1/call/${conversation}/hangup`).expect(200);
    await kit.twilio.ended(sid);
    expect(call().errors).toEqual([]);
    const messages = await messagesOf(kit, conversation);
    expect(messages.filter((m) => m.message_type === 'event').map((m) => m.content)).toEqual(['call.mute', 'call.say', 'call.unmute', 'call.hangup']);
  });

  it('a participant update Twilio refuses makes the mute a 502 and leaves the call unmuted', async () => {
    const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
    const to = callee();
    kit.twilio.script(to, { steps: [{ wait: 60_000_000 }, { wait: 60_000_000 }] });
    const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
    const conversation = created.body.data.conversation_uuid as string;
    const sid = await sidOfCallTo(to);
    await kit.twilio.waitFor((state) => state.calls.find((c) => c.sid === sid)?.said.length === 1);
    kit.twilio.state.failures.push({ on: '/Participants/', reply: { status: 400, body: { code: 20001, message: 'Bad request', status: 400 } } });
    await kit.kit.api.post(`/api/v1/call/${conversation}/mute`).expect(502);
    expect((await callOf(kit, conversation)).muted).toBe(false);
    expect(kit.twilio.call(sid).mutes).toEqual([]);
    await kit.kit.api.post(`/api/v1/call/${conversation}/hangup`).expect(200);
    await kit.twilio.ended(sid);
  });
});
