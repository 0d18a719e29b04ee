import { startTestKernel, type ApiClient, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, agentEventProbe, agentMessages, createAgent, eventually, failsWith, item, readAgent, write, type Json } from './agent-test-helpers';

const TRUNKS = '/api/v1/phone-numbers/trunks';
const NONE = { call: false, sms: false, chatapp: false, chatapp_call: false };

describe('DELETE /api/v1/phone-numbers/trunks', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN, agentEventProbe] });
  });
  afterAll(() => kit?.stop());

  // Numbers of their own, apart from the other agent test files' (each file has its tenant, but still).
  let next = 4155557100;
  const freshNumber = () => `+1${next++}`;

  /** An agent with one number of these capabilities (and, to see it untouched, a second call-only number). */
  async function agentWithNumber(capabilities: Json, api: ApiClient = kit.api) {
    const { agent_uuid } = await createAgent(api);
    const number = freshNumber();
    const bystander = freshNumber();
    await write(api, 'post', agent_uuid, 'phone-numbers', { number: bystander });
    const agent = await write(api, 'post', agent_uuid, 'phone-numbers', { number, capabilities: { ...NONE, ...capabilities } });
    const byNumber = (wanted: string) => agent.phone_numbers.find((p: Json) => p.number === wanted);
    return { agent_uuid, number, entry: byNumber(number), bystanderEntry: byNumber(bystander) };
  }

  const unbind = (query: Record<string, string>, api: ApiClient = kit.api) => api.delete(TRUNKS).query(query);

  async function unbound(query: Record<string, string>, api: ApiClient = kit.api): Promise<Json> {
    const before = Date.now();
    const res = await unbind(query, api);
    if (res.status !== 200) throw new Error(`DELETE ${JSON.stringify(query)} -> ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body).toEqual({ success: true, message: expect.any(String), data: { phone_number: expect.any(String), channel: query.channel, deleted_at: expect.any(String) } });
    const deletedAt = Date.parse(res.body.data.deleted_at);
    expect(deletedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(deletedAt).toBeLessThanOrEqual(Date.now() + 1000);
    return res.body.data;
  }

  const numberOf = (agent: Json, uuid: string) => item(agent.phone_numbers, uuid, 'phone_number_uuid');

  it('channel=call turns off only the voice binding; the number and its other bindings stay', async () => {
    const { agent_uuid, number, entry, bystanderEntry } = await agentWithNumber({ call: true, sms: true, chatapp: true, chatapp_call: true });
    const data = await unbound({ phone_number: number, channel: 'call' });
    expect(data.phone_number).toBe(number);
    const agent = await readAgent(kit.api, agent_uuid);
    expect(numberOf(agent, entry.phone_number_uuid)).toEqual({ ...entry, capabilities: { call: false, sms: true, chatapp: true, chatapp_call: true } });
    expect(numberOf(agent, bystanderEntry.phone_number_uuid)).toEqual(bystanderEntry);
  });

  it('channel=chatapp turns off chatapp and chatapp_call; the voice binding stays', async () => {
    const { agent_uuid, number, entry, bystanderEntry } = await agentWithNumber({ call: true, chatapp: true, chatapp_call: true });
    await unbound({ phone_number: number, channel: 'chatapp' });
    const agent = await readAgent(kit.api, agent_uuid);
    expect(numberOf(agent, entry.phone_number_uuid)).toEqual({ ...entry, capabilities: { call: true, sms: false, chatapp: false, chatapp_call: false } });
    expect(numberOf(agent, bystanderEntry.phone_number_uuid)).toEqual(bystanderEntry);
  });

  it('a number whose only chatapp binding is chatapp_call is bound on chatapp', async () => {
    const { agent_uuid, number, entry } = await agentWithNumber({ call: true, chatapp_call: true });
    await unbound({ phone_number: number, channel: 'chatapp' });
    expect(numberOf(await readAgent(kit.api, agent_uuid), entry.phone_number_uuid).capabilities).toEqual({ ...NONE, call: true });
  });

  it('a number left with no binding is removed from its agent; the agent and its other numbers stay', async () => {
    const { agent_uuid, number, entry, bystanderEntry } = await agentWithNumber({ call: true, chatapp: true });
    await unbound({ phone_number: number, channel: 'chatapp' });
    expect(numberOf(await readAgent(kit.api, agent_uuid), entry.phone_number_uuid)).toBeDefined();
    await unbound({ phone_number: number, channel: 'call' });
    const agent = await readAgent(kit.api, agent_uuid);
    expect(agent.phone_numbers).toEqual([bystanderEntry]);
    // Gone, so the number is free for another agent of the tenant.
    const other = await createAgent(kit.api);
    await write(kit.api, 'post', other.agent_uuid, 'phone-numbers', { number });
  });

  it('sms is no trunk channel: a number still able to send SMS is kept', async () => {
    const { agent_uuid, number, entry } = await agentWithNumber({ call: true, sms: true });
    await unbound({ phone_number: number, channel: 'call' });
    expect(numberOf(await readAgent(kit.api, agent_uuid), entry.phone_number_uuid).capabilities).toEqual({ ...NONE, sms: true });
  });

  it('the leading + is optional (and an unencoded + that arrives as a space is read as +); the answer names the E.164 form', async () => {
    const { agent_uuid, number, entry } = await agentWithNumber({ call: true, chatapp: true, sms: true });
    const data = await unbound({ phone_number: number.slice(1), channel: 'call' });
    expect(data.phone_number).toBe(number);
    expect(numberOf(await readAgent(kit.api, agent_uuid), entry.phone_number_uuid).capabilities.call).toBe(false);
    // A client that writes `?phone_number=+1...` without encoding the `+`.
    const raw = await kit.api.delete(`${TRUNKS}?phone_number=${number}&channel=chatapp`);
    expect(raw.status).toBe(200);
    expect(raw.body.data.phone_number).toBe(number);
    expect(numberOf(await readAgent(kit.api, agent_uuid), entry.phone_number_uuid).capabilities).toEqual({ ...NONE, sms: true });
  });

  it('announces agent.updated with member phone_numbers, for each removal', async () => {
    const { agent_uuid, number } = await agentWithNumber({ call: true, chatapp: true });
    const seen = () => agentMessages.filter((m) => m.topic === 'agent.updated' && m.payload.agent_uuid === agent_uuid);
    await eventually(() => seen().length >= 2); // the two numbers added
    const added = seen().length;
    await unbound({ phone_number: number, channel: 'call' });
    const afterCall = await eventually(() => seen()[added]);
    expect(afterCall.payload.changed).toEqual(['phone_numbers']);
    expect(afterCall.payload.agent.phone_numbers.find((p: Json) => p.number === number).capabilities.call).toBe(false);
    await unbound({ phone_number: number, channel: 'chatapp' });
    const afterChatapp = await eventually(() => seen()[added + 1]);
    expect(afterChatapp.payload.changed).toEqual(['phone_numbers']);
    expect(afterChatapp.payload.agent.phone_numbers.map((p: Json) => p.number)).not.toContain(number);
  });

  it('404 for a number the tenant does not have, and for a channel the number is not bound on; nothing changes', async () => {
    await failsWith(unbind({ phone_number: freshNumber(), channel: 'call' }), 404);
    const { agent_uuid, number } = await agentWithNumber({ call: true });
    const before = await readAgent(kit.api, agent_uuid);
    await failsWith(unbind({ phone_number: number, channel: 'chatapp' }), 404);
    expect(await readAgent(kit.api, agent_uuid)).toEqual(before);
    // The binding removed once is gone: a second delete of it is 404 too.
    const { agent_uuid: second, number: secondNumber, entry } = await agentWithNumber({ call: true, sms: true });
    await unbound({ phone_number: secondNumber, channel: 'call' });
    await failsWith(unbind({ phone_number: secondNumber, channel: 'call' }), 404);
    expect(numberOf(await readAgent(kit.api, second), entry.phone_number_uuid).capabilities).toEqual({ ...NONE, sms: true });
  });

  it("another tenant's number is 404 and stays bound", async () => {
    const tenant = await kit.createTenant();
    const { agent_uuid, number, entry } = await agentWithNumber({ call: true, chatapp: true }, tenant.api);
    await failsWith(unbind({ phone_number: number, channel: 'call' }), 404);
    await failsWith(unbind({ phone_number: number, channel: 'chatapp' }), 404);
    expect(numberOf(await readAgent(tenant.api, agent_uuid), entry.phone_number_uuid)).toEqual(entry);
    // The same number in this tenant is this tenant's own, and the other tenant's stays bound.
    const { agent_uuid: ownAgent } = await createAgent(kit.api);
    await write(kit.api, 'post', ownAgent, 'phone-numbers', { number, capabilities: { ...NONE, call: true, sms: true } });
    await unbound({ phone_number: number, channel: 'call' });
    expect(numberOf(await readAgent(tenant.api, agent_uuid), entry.phone_number_uuid)).toEqual(entry);
  });

  it('a bad channel or phone_number is 422 at its member, and nothing changes', async () => {
    const { agent_uuid, number } = await agentWithNumber({ call: true, chatapp: true });
    const before = await readAgent(kit.api, agent_uuid);
    const refused = async (query: Record<string, string>, paths: string[]) => {
      const res = await unbind(query);
      if (res.status !== 422) throw new Error(`${JSON.stringify(query)}: expected 422, got ${res.status} ${JSON.stringify(res.body)}`);
      expect(typeof res.body.message).toBe('string');
      expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
    };
    for (const channel of ['sms', 'chatapp_call', 'CALL', '']) await refused({ phone_number: number, channel }, ['channel']);
    await refused({ phone_number: number }, ['channel']);
    for (const phone_number of ['555-0100', '+0155550100', '++14155550100', '+1415', '']) await refused({ phone_number, channel: 'call' }, ['phone_number']);
    await refused({}, ['channel', 'phone_number']);
    await refused({ phone_number: number, channel: 'call', agent_uuid }, ['agent_uuid']);
    expect(await readAgent(kit.api, agent_uuid)).toEqual(before);
  });
});
