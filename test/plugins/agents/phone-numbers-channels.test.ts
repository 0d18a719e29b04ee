import { startTestKernel, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, createAgent, failsWith, item, others, readAgent, rejected, write } from './agent-test-helpers';

const DEFAULT_CAPABILITIES = { call: true, sms: false, chatapp: false, chatapp_call: false };

describe('agent phone numbers and channels', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN] });
  });
  afterAll(() => kit?.stop());

  let next = 4155550100;
  /** A number no other test of this file uses. */
  const freshNumber = () => `+1${next++}`;

  describe('phone numbers', () => {
    it('POST adds a number with the default capabilities and the other defaults', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const number = freshNumber();
      const agent = await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number });
      expect(agent.phone_numbers).toEqual([
        { phone_number_uuid: expect.any(String), number, status: 'active', country_code: null, type: 'local', capabilities: DEFAULT_CAPABILITIES },
      ]);
    });

    it('capabilities sent on create fill in over the defaults', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const number = freshNumber();
      const agent = await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number, country_code: 'US', type: 'toll_free', capabilities: { sms: true } });
      expect(agent.phone_numbers[0]).toMatchObject({ number, country_code: 'US', type: 'toll_free', capabilities: { call: true, sms: true, chatapp: false, chatapp_call: false } });
      const second = await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number: freshNumber(), capabilities: { call: false } });
      expect(item(second.phone_numbers, second.phone_numbers.find((p: any) => p.number !== number).phone_number_uuid, 'phone_number_uuid').capabilities).toEqual({
        ...DEFAULT_CAPABILITIES,
        call: false,
      });
      expect(item(second.phone_numbers, agent.phone_numbers[0].phone_number_uuid, 'phone_number_uuid')).toEqual(agent.phone_numbers[0]);
    });

    it('PATCH merges capabilities by member and changes only that number', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number: freshNumber() });
      const before = await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number: freshNumber(), capabilities: { chatapp: true } });
      const target = before.phone_numbers[1];
      let after = await write(kit.api, 'patch', agent_uuid, `phone-numbers/${target.phone_number_uuid}`, { capabilities: { sms: true } });
      expect(item(after.phone_numbers, target.phone_number_uuid, 'phone_number_uuid')).toEqual({
        ...target,
        capabilities: { call: true, sms: true, chatapp: true, chatapp_call: false },
      });
      after = await write(kit.api, 'patch', agent_uuid, `phone-numbers/${target.phone_number_uuid}`, { capabilities: { call: false }, status: 'inactive' });
      expect(item(after.phone_numbers, target.phone_number_uuid, 'phone_number_uuid')).toEqual({
        ...target,
        status: 'inactive',
        capabilities: { call: false, sms: true, chatapp: true, chatapp_call: false },
      });
      expect(others(after.phone_numbers, target.phone_number_uuid, 'phone_number_uuid')).toEqual(others(before.phone_numbers, target.phone_number_uuid, 'phone_number_uuid'));
      after = await write(kit.api, 'patch', agent_uuid, `phone-numbers/${target.phone_number_uuid}`, { country_code: 'GB' });
      expect(item(after.phone_numbers, target.phone_number_uuid, 'phone_number_uuid').capabilities).toEqual({ call: false, sms: true, chatapp: true, chatapp_call: false });
    });

    it('the number must be E.164: 422 at number (POST and PATCH), nothing written', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      for (const number of ['4155550100', '+0155550100', '+1 415 555 0100', '+1415', '+1234567890123456', '+1-415-555-0100', '']) {
        await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number }, ['number']);
      }
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', {}, ['number']);
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number: 14155550100 }, ['number']);
      const agent = await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number: freshNumber() });
      await rejected(kit.api, 'patch', agent_uuid, `phone-numbers/${agent.phone_numbers[0].phone_number_uuid}`, { number: '555-0100' }, ['number']);
    });

    it('other bad members are 422 at their dotted path', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      const number = freshNumber();
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number, capabilities: { fax: true } }, ['capabilities.fax']);
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number, capabilities: { sms: 'yes' } }, ['capabilities.sms']);
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number, country_code: 'usa' }, ['country_code']);
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number, status: 'ringing' }, ['status']);
      await rejected(kit.api, 'post', agent_uuid, 'phone-numbers', { number, carrier: 'x' }, ['carrier']);
      const agent = await write(kit.api, 'post', agent_uuid, 'phone-numbers', { number });
      await rejected(kit.api, 'patch', agent_uuid, `phone-numbers/${agent.phone_numbers[0].phone_number_uuid}`, { capabilities: { call: null } }, ['capabilities.call']);
    });

    it('one number belongs to one agent of a tenant: a second one is 409 (POST and PATCH); another tenant may use it', async () => {
      const a = await createAgent(kit.api);
      const b = await createAgent(kit.api);
      const number = freshNumber();
      const aAgent = await write(kit.api, 'post', a.agent_uuid, 'phone-numbers', { number });
      const bBefore = await readAgent(kit.api, b.agent_uuid);
      await failsWith(kit.api.post(`/api/v1/agents/${b.agent_uuid}/phone-numbers`).send({ number }), 409);
      await failsWith(kit.api.post(`/api/v1/agents/${a.agent_uuid}/phone-numbers`).send({ number }), 409);
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bBefore);
      expect(await readAgent(kit.api, a.agent_uuid)).toEqual(aAgent);

      const bAgent = await write(kit.api, 'post', b.agent_uuid, 'phone-numbers', { number: freshNumber() });
      await failsWith(kit.api.patch(`/api/v1/agents/${b.agent_uuid}/phone-numbers/${bAgent.phone_numbers[0].phone_number_uuid}`).send({ number, status: 'inactive' }), 409);
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bAgent);

      const tenant = await kit.createTenant();
      const theirs = await createAgent(tenant.api);
      const theirAgent = await write(tenant.api, 'post', theirs.agent_uuid, 'phone-numbers', { number });
      expect(theirAgent.phone_numbers[0].number).toBe(number);

      // Once released, the number can go to another agent.
      await write(kit.api, 'delete', a.agent_uuid, `phone-numbers/${aAgent.phone_numbers[0].phone_number_uuid}`);
      const moved = await write(kit.api, 'post', b.agent_uuid, 'phone-numbers', { number });
      expect(moved.phone_numbers.map((p: any) => p.number)).toContain(number);
    });

    it('two agents claiming one number at the same time: one gets it, the other 409 (never 500)', async () => {
      const a = await createAgent(kit.api);
      const b = await createAgent(kit.api);
      const number = freshNumber();
      const results = await Promise.all([a, b].map((agent) => kit.api.post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`).send({ number })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const holders = [await readAgent(kit.api, a.agent_uuid), await readAgent(kit.api, b.agent_uuid)].filter((agent) => agent.phone_numbers.length > 0);
      expect(holders).toHaveLength(1);
      expect(holders[0].phone_numbers.map((p: any) => p.number)).toEqual([number]);
    });

    it('DELETE removes only that number; a number of agent B on agent A’s path is 404', async () => {
      const a = await createAgent(kit.api);
      await write(kit.api, 'post', a.agent_uuid, 'phone-numbers', { number: freshNumber() });
      const before = await write(kit.api, 'post', a.agent_uuid, 'phone-numbers', { number: freshNumber() });
      const gone = before.phone_numbers[0].phone_number_uuid;
      const after = await write(kit.api, 'delete', a.agent_uuid, `phone-numbers/${gone}`);
      expect(after.phone_numbers).toEqual(others(before.phone_numbers, gone, 'phone_number_uuid'));

      const b = await createAgent(kit.api);
      const bAgent = await write(kit.api, 'post', b.agent_uuid, 'phone-numbers', { number: freshNumber() });
      const theirs = bAgent.phone_numbers[0].phone_number_uuid;
      await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/phone-numbers/${theirs}`).send({ status: 'inactive' }), 404);
      await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/phone-numbers/${theirs}`), 404);
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bAgent);
    });
  });

  describe('channels', () => {
    it('POST adds a channel of a known type with defaults; PATCH changes only that one; config is replaced when sent', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await write(kit.api, 'post', agent_uuid, 'channels', { type: 'sms' });
      const before = await write(kit.api, 'post', agent_uuid, 'channels', { type: 'web_chat', name: 'Widget', config: { color: 'blue', position: 'right' } });
      expect(before.channels).toEqual([
        { uuid: expect.any(String), type: 'sms', name: '', is_active: true, config: {}, public_key: null },
        { uuid: expect.any(String), type: 'web_chat', name: 'Widget', is_active: true, config: { color: 'blue', position: 'right' }, public_key: expect.stringMatching(/^pk_[A-Za-z0-9_-]{24,}$/) },
      ]);
      const widget = before.channels[1];
      let after = await write(kit.api, 'patch', agent_uuid, `channels/${widget.uuid}`, { name: 'Site widget' });
      expect(item(after.channels, widget.uuid)).toEqual({ ...widget, name: 'Site widget' });
      after = await write(kit.api, 'patch', agent_uuid, `channels/${widget.uuid}`, { config: { color: 'red' }, type: 'chatapp' });
      // The key is shown for web_chat only, and kept: the channel back on web_chat has the same one.
      expect(item(after.channels, widget.uuid)).toEqual({ ...widget, name: 'Site widget', type: 'chatapp', config: { color: 'red' }, public_key: null });
      after = await write(kit.api, 'patch', agent_uuid, `channels/${widget.uuid}`, { type: 'web_chat' });
      expect(item(after.channels, widget.uuid).public_key).toBe(widget.public_key);
      after = await write(kit.api, 'patch', agent_uuid, `channels/${widget.uuid}`, { type: 'chatapp' });
      expect(others(after.channels, widget.uuid)).toEqual(others(before.channels, widget.uuid));
    });

    it('type must be one of the channel types (POST and PATCH)', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent_uuid, 'channels', { type: 'fax' }, ['type']);
      await rejected(kit.api, 'post', agent_uuid, 'channels', {}, ['type']);
      await rejected(kit.api, 'post', agent_uuid, 'channels', { type: 'sms', config: 'x' }, ['config']);
      await rejected(kit.api, 'post', agent_uuid, 'channels', { type: 'sms', token: 'x' }, ['token']);
      for (const type of ['phone', 'sms', 'chatapp', 'chatapp_call', 'social', 'web_chat']) await write(kit.api, 'post', agent_uuid, 'channels', { type });
      const agent = await readAgent(kit.api, agent_uuid);
      expect(agent.channels.map((c: any) => c.type)).toEqual(['phone', 'sms', 'chatapp', 'chatapp_call', 'social', 'web_chat']);
      await rejected(kit.api, 'patch', agent_uuid, `channels/${agent.channels[0].uuid}`, { type: 'telegram' }, ['type']);
      await rejected(kit.api, 'patch', agent_uuid, `channels/${agent.channels[0].uuid}`, { is_active: 'no' }, ['is_active']);
    });

    it('web_chat: config.allowed_origins must be origins (422 naming the member); public_key is unique and cannot be set', async () => {
      const { agent_uuid } = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent_uuid, 'channels', { type: 'web_chat', config: { allowed_origins: 'https://shop.example.com' } }, ['config.allowed_origins']);
      const bad = { allowed_origins: ['https://shop.example.com', 'https://shop.example.com/', 'shop.example.com', 'ftp://x.example', 'https://a.example/path'] };
      await rejected(kit.api, 'post', agent_uuid, 'channels', { type: 'web_chat', config: bad }, [
        'config.allowed_origins.1',
        'config.allowed_origins.2',
        'config.allowed_origins.3',
        'config.allowed_origins.4',
      ]);
      // Only a web chat's origins matter: another type keeps whatever config it is given.
      await write(kit.api, 'post', agent_uuid, 'channels', { type: 'sms', config: bad });
      const origins = ['https://shop.example.com', 'http://localhost:8080'];
      let agent = await write(kit.api, 'post', agent_uuid, 'channels', { type: 'web_chat', config: { allowed_origins: origins }, public_key: 'pk_mine_mine_mine_mine_mine_mine' });
      const chat = agent.channels.find((c: any) => c.type === 'web_chat');
      expect(chat.config.allowed_origins).toEqual(origins);
      expect(chat.public_key).not.toBe('pk_mine_mine_mine_mine_mine_mine');
      await rejected(kit.api, 'patch', agent_uuid, `channels/${chat.uuid}`, { config: { allowed_origins: ['nope'] } }, ['config.allowed_origins.0']);
      agent = await write(kit.api, 'post', agent_uuid, 'channels', { type: 'web_chat' });
      const keys = agent.channels.filter((c: any) => c.type === 'web_chat').map((c: any) => c.public_key);
      expect(new Set(keys).size).toBe(2);
    });

    it('DELETE removes only that channel; a channel of agent B on agent A’s path is 404', async () => {
      const a = await createAgent(kit.api);
      await write(kit.api, 'post', a.agent_uuid, 'channels', { type: 'sms' });
      const before = await write(kit.api, 'post', a.agent_uuid, 'channels', { type: 'phone' });
      const after = await write(kit.api, 'delete', a.agent_uuid, `channels/${before.channels[0].uuid}`);
      expect(after.channels).toEqual([before.channels[1]]);

      const b = await createAgent(kit.api);
      const bAgent = await write(kit.api, 'post', b.agent_uuid, 'channels', { type: 'sms' });
      await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/channels/${bAgent.channels[0].uuid}`).send({ name: 'x' }), 404);
      await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/channels/${bAgent.channels[0].uuid}`), 404);
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bAgent);
    });
  });
});
