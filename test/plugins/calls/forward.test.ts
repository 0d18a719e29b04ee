import { waitFor } from '../../../core/testing';
import { DEFAULT_FALLBACK_LINE } from '../../../plugins/calls/engine/transfers';
import { callOf, callingAgent, messagesOf, startCallsKit, type CallsKit } from './calls-kit';

/**
 * The live `forward` action against the Twilio-shaped server: to a number or a SIP address,
 * to a PBX extension connector of the tenant (`destination_type: extension`), refused with
 * nothing sent for an extension no connector names, and taken back by the agent when the
 * callee is busy.
 */

let kit: CallsKit;

beforeAll(async () => {
  kit = await startCallsKit();
});
afterAll(() => kit?.stop());

let nextNumber = 622000000;
const callee = () => `+34${nextNumber++}`;
let nextExtension = 401;

const sidOfCallTo = (to: string) => kit.twilio.waitFor((state) => state.calls.find((call) => call.to === to)?.sid);
const endedCall = (conversation: string) =>
  waitFor(
    () => callOf(kit, conversation),
    (call) => call.status === 'ended',
  );
const eventsOf = async (conversation: string) => (await messagesOf(kit, conversation)).filter((m) => m.message_type === 'event').map((m) => m.content);

/** A call in progress, its caller quiet (each step holds a Gather a simulated minute or more), once the agent's first line was said. */
async function listeningCall(steps: Array<{ wait: number } | { say: string }> = [{ wait: 60_000_000 }]): Promise<{ conversation: string; sid: string }> {
  const { agent } = await callingAgent(kit, { interaction: { outbound_first_message: 'Hi!' } });
  const to = callee();
  kit.twilio.script(to, { steps });
  const created = await kit.kit.api.post('/api/v1/call').send({ agent_uuid: agent, to }).expect(201);
  const sid = await sidOfCallTo(to);
  await kit.twilio.waitFor(() => kit.twilio.call(sid).current === 'Gather' && kit.twilio.call(sid).said.length === 1);
  return { conversation: created.body.data.conversation_uuid as string, sid };
}

describe('POST /api/v1/call/{conversation_uuid}/forward', () => {
  it('dials a number through a live update; answered and over, the call ends `transferred`; other live actions wait meanwhile (409)', async () => {
    const { conversation, sid } = await listeningCall();
    const billing = callee();
    // Rings 500 simulated seconds (half a real one): the answer comes while the transfer still waits.
    kit.twilio.script(billing, { ringSeconds: 500, steps: [{ say: 'Billing, hello' }] });
    const forwarded = await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: billing }).expect(200);
    expect(forwarded.body).toMatchObject({ success: true, data: { status: 'in_progress', ended_reason: null } });
    await kit.kit.api.post(`/api/v1/call/${conversation}/say`).send({ text: 'Hello?' }).expect(409);

    const played = await kit.twilio.ended(sid);
    expect(played.errors).toEqual([]);
    expect(played.dials).toEqual([expect.objectContaining({ noun: 'Number', number: billing, status: 'completed' })]);
    expect(played.updates).toHaveLength(1);
    expect(played.updates[0].Twiml).toContain(`/hooks/calls/${forwarded.body.data.call_uuid}/dial" method="POST"><Number>${billing}</Number></Dial>`);
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'transferred' });
    expect(await eventsOf(conversation)).toEqual([`call.forward ${billing}`]);
  });

  it('`destination_type: extension` dials the tenant’s PBX extension connector as SIP at its registrar', async () => {
    const extension = String(nextExtension++);
    const made = await kit.kit.api
      .post('/api/v1/pbx_extension_connectors')
      .send({ name: 'Reception', connection_type: 'tcp', pbx: { registrar_server: 'pbx.example.org', port: 5080, username_extension: extension } });
    expect([made.status, made.body.errors]).toEqual([201, undefined]);
    const uri = `sip:${extension}@pbx.example.org:5080;transport=tcp`;
    kit.twilio.script(uri, { steps: [{ say: 'Reception' }] });
    const { conversation, sid } = await listeningCall();
    await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: extension, destination_type: 'extension' }).expect(200);
    const played = await kit.twilio.ended(sid);
    expect(played.errors).toEqual([]);
    expect(played.dials).toEqual([expect.objectContaining({ noun: 'Sip', number: uri, status: 'completed' })]);
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'transferred' });
    expect(await eventsOf(conversation)).toEqual([`call.forward extension ${extension} (Reception) at ${uri}`]);
  });

  it('an extension no connector names, or a destination that is no number: 422 on `destination`, nothing sent or recorded, the call goes on', async () => {
    const { conversation, sid } = await listeningCall([{ wait: 60_000_000 }, { wait: 60_000_000 }]);
    const unknown = await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: '4999', destination_type: 'extension' }).expect(422);
    expect(unknown.body.errors).toEqual({ destination: ['extension 4999 is not a PBX extension connector of this tenant'] });
    const notANumber = await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: '4999' }).expect(422);
    expect(Object.keys(notANumber.body.errors)).toEqual(['destination']);
    const badType = await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: '+34600000000', destination_type: 'queue' }).expect(422);
    expect(Object.keys(badType.body.errors)).toEqual(['destination_type']);

    expect(kit.twilio.call(sid).updates).toEqual([]);
    expect(await eventsOf(conversation)).toEqual([]);
    expect(await callOf(kit, conversation)).toMatchObject({ status: 'in_progress', ended_reason: null });
    await kit.kit.api.post(`/api/v1/call/${conversation}/hangup`).expect(200);
    await kit.twilio.ended(sid);
  });

  it('a busy callee: the agent takes the call back with its line and answers the caller’s next words', async () => {
    const { conversation, sid } = await listeningCall([{ wait: 60_000_000 }, { say: 'Are you back?' }]);
    const busy = callee();
    kit.twilio.script(busy, { answer: 'busy' });
    await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: busy }).expect(200);
    const played = await kit.twilio.ended(sid);
    expect(played.errors).toEqual([]);
    expect(played.dials.map((dial) => dial.status)).toEqual(['busy']);
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', DEFAULT_FALLBACK_LINE, 'You said: Are you back?']);
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'completed' });
    expect(await eventsOf(conversation)).toEqual([`call.forward ${busy}`, 'call.transfer_failed: busy']);
  });

  it('a muted call whose forward nobody answers comes back unmuted: the agent speaks its line and answers again', async () => {
    const { conversation, sid } = await listeningCall([{ wait: 60_000_000 }, { wait: 60_000_000 }, { say: 'Still there?' }]);
    await kit.kit.api.post(`/api/v1/call/${conversation}/mute`).expect(200);
    expect(await callOf(kit, conversation)).toMatchObject({ muted: true });
    const away = callee();
    kit.twilio.script(away, { answer: 'no-answer' });
    await kit.kit.api.post(`/api/v1/call/${conversation}/forward`).send({ destination: away }).expect(200);
    const played = await kit.twilio.ended(sid);
    expect(played.errors).toEqual([]);
    // The mute's conference, then the forward's number.
    expect(played.dials.map((dial) => [dial.noun, dial.status])).toEqual([
      ['Conference', null],
      ['Number', 'no-answer'],
    ]);
    expect(played.said.map((line) => line.text)).toEqual(['Hi!', DEFAULT_FALLBACK_LINE, 'You said: Still there?']);
    expect(await endedCall(conversation)).toMatchObject({ ended_reason: 'completed', muted: false });
    expect(await eventsOf(conversation)).toEqual(['call.mute', `call.forward ${away}`, 'call.transfer_failed: no_answer']);
  });
});
