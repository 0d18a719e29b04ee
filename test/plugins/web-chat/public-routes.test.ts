import { startFakeLlmServer, startTestKernel, type ApiClient, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { asText, parseEvents, webChatAgent, WEB_CHAT_PLUGINS } from './web-chat-test-kit';

let model: FakeLlmServer;
let kit: TestKernel;
/** A browser's view: no API token, any host (public routes answer on every host). */
let visitor: ApiClient;
const HOST = 'chat.example.test';
const SHOP = 'https://shop.example.com';

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: WEB_CHAT_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmApiKey: 'sk-operator', llmMaxRetries: 0 } });
  visitor = kit.client({ host: HOST });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

const conversations = (key: string) => `/public/v1/chat/${key}/conversations`;
const messages = (key: string, conversation: string) => `${conversations(key)}/${conversation}/messages`;

async function openChat(key: string, origin?: string): Promise<{ conversation_uuid: string; visitor_token: string }> {
  const request = visitor.post(conversations(key));
  const res = await (origin ? request.set('Origin', origin) : request).expect(201);
  return res.body.data;
}

describe('web chat public routes', () => {
  it('opens a conversation on channel chat with a visitor token kept only as a hash, then answers turns and shows the history', async () => {
    const { agent, key } = await webChatAgent(kit.api);
    const opened = await openChat(key);
    expect(Object.keys(opened).sort()).toEqual(['conversation_uuid', 'visitor_token']);
    expect(opened.visitor_token).toMatch(/^vt_[A-Za-z0-9_-]{43}$/);
    const conversation = (await kit.api.get(`/api/v1/conversations/${opened.conversation_uuid}`).expect(200)).body.data;
    expect(conversation).toMatchObject({ agent_uuid: agent, channel: 'chat', channel_label: 'Web chat', status: 'open', contact_uuid: null });

    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select * from web_chat_visitors where conversation_uuid = ?', [opened.conversation_uuid]);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(opened.visitor_token);

    model.reply({ content: 'We ship to Portugal in 3 days.' });
    const turn = await visitor
      .post(messages(key, opened.conversation_uuid))
      .set('Authorization', `Bearer ${opened.visitor_token}`)
      .send({ message: 'Do you ship to Portugal?' })
      .expect(200);
    expect(turn.body.data).toMatchObject({ conversation_uuid: opened.conversation_uuid, status: 'open', reply: { content: 'We ship to Portugal in 3 days.' } });
    expect(model.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Do you ship to Portugal?' });

    const history = await visitor.get(messages(key, opened.conversation_uuid)).set('Authorization', `Bearer ${opened.visitor_token}`).expect(200);
    expect(history.body.data.status).toBe('open');
    expect(history.body.data.messages.map((m: any) => [m.sender, m.content])).toEqual([
      ['customer', 'Do you ship to Portugal?'],
      ['agent', 'We ship to Portugal in 3 days.'],
    ]);
    expect(Object.keys(history.body.data.messages[0]).sort()).toEqual(['content', 'created_at', 'message_uuid', 'sender']);
  });

  it('finds the channel of any tenant by its key alone, and the conversation is that tenant’s', async () => {
    const other = await kit.createTenant();
    const theirs = await webChatAgent(other.api);
    const opened = await openChat(theirs.key);
    const conversation = (await other.api.get(`/api/v1/conversations/${opened.conversation_uuid}`).expect(200)).body.data;
    expect(conversation.agent_uuid).toBe(theirs.agent);
    await kit.api.get(`/api/v1/conversations/${opened.conversation_uuid}`).expect(404);
  });

  it('streams a turn as Server-Sent Events: deltas, then done with the JSON answer', async () => {
    const { key } = await webChatAgent(kit.api);
    const opened = await openChat(key);
    model.reply({ content: 'Hello there, friend.', chunks: ['Hello ', 'there, ', 'friend.'] });
    const res = await asText(
      visitor.post(messages(key, opened.conversation_uuid)).set('Authorization', `Bearer ${opened.visitor_token}`).set('Accept', 'text/event-stream').send({ message: 'Hi' }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = parseEvents(res.body as string);
    // The first piece at once; the pieces after it that arrive together go together.
    const deltas = events.slice(0, -1);
    expect(deltas.map((e) => e.event)).toEqual(deltas.map(() => 'delta'));
    expect(deltas.map((e) => e.data.text).join('')).toBe('Hello there, friend.');
    expect(events.at(-1)!.event).toBe('done');
    expect(events.at(-1)!.data.data).toMatchObject({ conversation_uuid: opened.conversation_uuid, reply: { content: 'Hello there, friend.' } });
  });

  it('refuses an unknown key (404), a missing or wrong token (401), and a token on another conversation or channel (401)', async () => {
    const first = await webChatAgent(kit.api);
    const second = await webChatAgent(kit.api);
    const a = await openChat(first.key);
    const b = await openChat(first.key);
    const other = await openChat(second.key);
    const unknown = 'pk_ThisKeyWasNeverMadeByAnyChannel';
    await visitor.post(conversations(unknown)).expect(404);
    await visitor.post(messages(unknown, a.conversation_uuid)).set('Authorization', `Bearer ${a.visitor_token}`).send({ message: 'x' }).expect(404);
    await visitor.get(messages(unknown, a.conversation_uuid)).set('Authorization', `Bearer ${a.visitor_token}`).expect(404);
    await visitor.get(`/chat/${unknown}`).expect(404);

    const say = (key: string, conversation: string, token?: string) => {
      const request = visitor.post(messages(key, conversation));
      return (token ? request.set('Authorization', `Bearer ${token}`) : request).send({ message: 'Hello?' });
    };
    await say(first.key, a.conversation_uuid).expect(401);
    await say(first.key, a.conversation_uuid, `${a.visitor_token}x`).expect(401);
    await say(first.key, a.conversation_uuid, b.visitor_token).expect(401);
    await say(second.key, a.conversation_uuid, a.visitor_token).expect(401);
    await say(first.key, other.conversation_uuid, other.visitor_token).expect(401);
    await visitor.get(messages(first.key, b.conversation_uuid)).set('Authorization', `Bearer ${a.visitor_token}`).expect(401);
    // Nothing was recorded by the refused requests.
    const recorded = (await kit.api.get(`/api/v1/conversations/${a.conversation_uuid}/messages`).expect(200)).body.data.items;
    expect(recorded).toEqual([]);
    // A message is what the runtime takes: 1..8000 characters.
    const empty = await say(first.key, a.conversation_uuid, a.visitor_token).send({ message: '' }).expect(422);
    expect(Object.keys(empty.body.errors)).toEqual(['message']);
  });

  it('a channel switched off or an agent not active is 409; a closed conversation is 409 (JSON and before a stream starts)', async () => {
    const chat = await webChatAgent(kit.api);
    const opened = await openChat(chat.key);
    const auth = `Bearer ${opened.visitor_token}`;
    await kit.api.patch(`/api/v1/agents/${chat.agent}/channels/${chat.channel}`).send({ is_active: false }).expect(200);
    await visitor.post(conversations(chat.key)).expect(409);
    await visitor.post(messages(chat.key, opened.conversation_uuid)).set('Authorization', auth).send({ message: 'Hi' }).expect(409);
    await kit.api.patch(`/api/v1/agents/${chat.agent}/channels/${chat.channel}`).send({ is_active: true }).expect(200);

    await kit.api.post(`/api/v1/agents/${chat.agent}/pause`).expect(200);
    await visitor.post(conversations(chat.key)).expect(409);
    await visitor.post(messages(chat.key, opened.conversation_uuid)).set('Authorization', auth).send({ message: 'Hi' }).expect(409);
    await kit.api.post(`/api/v1/agents/${chat.agent}/activate`).expect(200);

    model.reply({ content: 'Goodbye!', toolCalls: [{ name: 'end_conversation', arguments: { reason: 'done' } }] });
    const ended = await visitor.post(messages(chat.key, opened.conversation_uuid)).set('Authorization', auth).send({ message: 'Bye' }).expect(200);
    expect(ended.body.data.status).toBe('closed');
    await visitor.post(messages(chat.key, opened.conversation_uuid)).set('Authorization', auth).send({ message: 'Again' }).expect(409);
    const streamed = await asText(visitor.post(messages(chat.key, opened.conversation_uuid)).set('Authorization', auth).set('Accept', 'text/event-stream').send({ message: 'Again' }));
    expect(streamed.status).toBe(409);
    // The visitor may still read what was said.
    const history = await visitor.get(messages(chat.key, opened.conversation_uuid)).set('Authorization', auth).expect(200);
    expect(history.body.data.status).toBe('closed');
  });

  describe('CORS', () => {
    it('grants the allowed origins: preflight and requests carry Access-Control-Allow-Origin', async () => {
      const { key } = await webChatAgent(kit.api, { allowed_origins: [SHOP, 'http://localhost:8080'] });
      const preflight = await visitor
        .options(conversations(key))
        .set('Origin', SHOP)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type')
        .expect(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(SHOP);
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
      expect(preflight.headers['access-control-allow-headers'].toLowerCase()).toEqual(expect.stringContaining('authorization'));
      expect(preflight.headers['access-control-allow-headers'].toLowerCase()).toEqual(expect.stringContaining('content-type'));
      expect(preflight.headers.vary).toContain('Origin');

      const opened = await visitor.post(conversations(key)).set('Origin', SHOP).expect(201);
      expect(opened.headers['access-control-allow-origin']).toBe(SHOP);
      const conversation = (await kit.api.get(`/api/v1/conversations/${opened.body.data.conversation_uuid}`).expect(200)).body.data;
      expect(conversation.channel_label).toBe(`Web chat on ${SHOP}`);
      const path = messages(key, opened.body.data.conversation_uuid);
      const messagesPreflight = await visitor.options(path).set('Origin', 'http://localhost:8080').set('Access-Control-Request-Method', 'POST').expect(204);
      expect(messagesPreflight.headers['access-control-allow-origin']).toBe('http://localhost:8080');

      model.reply({ content: 'Yes.', chunks: ['Yes.'] });
      const streamed = await asText(
        visitor.post(path).set('Origin', SHOP).set('Authorization', `Bearer ${opened.body.data.visitor_token}`).set('Accept', 'text/event-stream').send({ message: 'Open?' }),
      );
      expect(streamed.status).toBe(200);
      expect(streamed.headers['access-control-allow-origin']).toBe(SHOP);
      // A refusal the page must be able to read carries the grant too.
      const refused = await visitor.get(path).set('Origin', SHOP).set('Authorization', 'Bearer vt_wrong').expect(401);
      expect(refused.headers['access-control-allow-origin']).toBe(SHOP);
    });

    it('refuses any other origin with a 403 and no grant; pages of this server and requests without Origin need none', async () => {
      const { key } = await webChatAgent(kit.api, { allowed_origins: [SHOP] });
      for (const origin of ['https://evil.example', 'https://shop.example.com:8443', 'http://shop.example.com', 'null']) {
        const preflight = await visitor.options(conversations(key)).set('Origin', origin).set('Access-Control-Request-Method', 'POST').expect(403);
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
        const post = await visitor.post(conversations(key)).set('Origin', origin).expect(403);
        expect(post.headers['access-control-allow-origin']).toBeUndefined();
      }
      // Without allowed origins only the hosted page (this server's origin) talks to the channel.
      const bare = await webChatAgent(kit.api);
      await visitor.post(conversations(bare.key)).set('Origin', SHOP).expect(403);
      const own = await visitor.post(conversations(bare.key)).set('Origin', `http://${HOST}`).expect(201);
      expect(own.headers['access-control-allow-origin']).toBeUndefined();
      // Behind a proxy that ends TLS the page is https while the request arrives as http: the host decides.
      await visitor.post(conversations(bare.key)).set('Origin', `https://${HOST}`).expect(201);
      await visitor.post(conversations(bare.key)).set('Origin', `https://${HOST}.evil.example`).expect(403);
      await visitor.post(conversations(bare.key)).expect(201);
    });
  });

  describe('the hosted page and the widget', () => {
    it('GET /chat/{public_key} serves an accessible HTML chat page bound to the key', async () => {
      const { key } = await webChatAgent(kit.api);
      const res = await visitor.get(`/chat/${key}`).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
      const html = res.text;
      expect(html).toContain(`data-public-key="${key}"`);
      expect(html).toContain('aria-live');
      expect(html).toContain("'aria-live': 'polite'");
      expect(html).toMatch(/<html lang="en">/);
      expect(html).toContain(':focus-visible');
      const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers['content-security-policy'])![1];
      expect(html).toContain(`<script nonce="${nonce}">`);
    });

    it('GET /widget.js serves the widget script', async () => {
      const res = await asText(visitor.get('/widget.js')).expect(200);
      expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
      const js = res.body as string;
      expect(js).toContain("getAttribute('data-public-key')");
      expect(js).toContain("'aria-haspopup', 'dialog'");
      // It parses as JavaScript.
      expect(() => new Function(js)).not.toThrow();
    });
  });
});

describe('web chat rate limit', () => {
  let limited: TestKernel;
  afterAll(() => limited?.stop());

  it('limits each client IP on the public routes (429 with Retry-After)', async () => {
    limited = await startTestKernel({ plugins: WEB_CHAT_PLUGINS, config: { rateLimitHookIpRps: 1, rateLimitHookIpBurst: 2 } });
    const { key } = await webChatAgent(limited.api);
    const client = limited.client({ host: HOST });
    await client.post(conversations(key)).expect(201);
    await client.post(conversations(key)).expect(201);
    const refused = await client.post(conversations(key)).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The tenant's own API is not the visitors' bucket.
    await limited.api.get(`/api/v1/agents`).expect(200);
  });
});
