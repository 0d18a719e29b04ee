import crypto from 'node:crypto';
import path from 'node:path';
import { coreServices, definePlugin, newUuid } from '../../../core';
import { startFakeLlmServer, startTestKernel, transactionsOpenLongerThan, type FakeLlmReply, type FakeLlmRequest, type FakeLlmServer, type TestKernel, type TestTenant } from '../../../core/testing';

/**
 * Contact approvals: what the `session.closed` consumer proposes from the model's one
 * answer per session, and the approve / reject routes.
 */

const PLUGINS = ['agents', 'conversations', 'contacts'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const PROPOSER = 'contacts.propose-contact-updates';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Json = Record<string, any>;
type Api = TestTenant['api'];

/** The `session.closed` messages the bus delivered, so a test can tell when the proposer has handled one. */
const closedMessages: Array<{ id: string; session: string }> = [];
const probe = definePlugin({
  id: 'contacts-probe',
  dependsOn: ['contacts'],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume<{ session_uuid: string }>({ name: 'watch', topics: ['session.closed'] }, async (message) => {
      closedMessages.push({ id: message.id, session: message.payload.session_uuid });
    });
  },
});

let server: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  server = await startFakeLlmServer();
  kit = await startTestKernel({
    plugins: [...PLUGINS, probe],
    config: {
      llmBaseUrl: server.url,
      llmModel: 'test-model',
      // Each delivery is one request; the bus does the retrying, soon.
      llmMaxRetries: 0,
      busBackoffInitialMs: 50,
    },
  });
});
afterAll(async () => {
  await kit?.stop();
  await server?.close();
});
afterEach(() => {
  expect(server.remaining).toBe(0);
});

const uniqueText = () => `ref-${crypto.randomBytes(4).toString('hex')}`;

const sql = (statement: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(statement, params);

async function eventually<T>(read: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface ContactValues {
  name?: string;
  email?: string;
  phone_number?: string;
  company?: string;
  city?: string;
  pipeline_stage?: string;
  custom_fields?: Json;
}

/** A contact of the tenant; it gets an email of its own unless one is given (a contact needs a phone number or an email). */
async function createContact(tenant: TestTenant, values: ContactValues = {}): Promise<string> {
  const res = await tenant.api.post('/api/v1/contacts').send({ name: 'Ana', email: `${uniqueText()}@example.com`, ...values });
  if (res.status !== 201) throw new Error(`POST /api/v1/contacts -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.uuid;
}

const contactOf = async (tenant: TestTenant, uuid: string): Promise<Json> => (await tenant.api.get(`/api/v1/contacts/${uuid}`).expect(200)).body.data;

const createField = (tenant: TestTenant, key: string, dataType: string) =>
  tenant.api.post('/api/v1/contact-fields').send({ key, name: key, data_type: dataType }).expect(201);

const deleteField = (tenant: TestTenant, key: string) => tenant.api.delete(`/api/v1/contact-fields/${key}`).expect(200);

const createAnalyzer = (api: Api, analyzerId: string, extra: Json = {}) =>
  api
    .post('/api/v1/contact-analyzers')
    .send({ analyzer_id: analyzerId, instruction: `I-${analyzerId}: what the session says about it`, ...extra })
    .expect(201);

const createAgent = async (api: Api): Promise<string> => (await api.post('/api/v1/agents').send({ name: 'Sales' }).expect(201)).body.data.agent_uuid;

/** A conversation of the contact with these turns (customer first), closed: returns its session. `opened` runs once it is open. */
async function closedSession(api: Api, agent: string, contact: string | null, turns: string[], opened?: () => Promise<unknown>): Promise<string> {
  const conversation = await api
    .post('/api/v1/conversations')
    .send({ agent_uuid: agent, channel: 'chat', ...(contact ? { contact_uuid: contact } : {}) })
    .expect(201);
  const uuid: string = conversation.body.data.uuid;
  await opened?.();
  let session = '';
  for (const [index, content] of turns.entries()) {
    const res = await api
      .post(`/api/v1/conversations/${uuid}/messages`)
      .send({ sender: index % 2 === 0 ? 'customer' : 'agent', content })
      .expect(201);
    session = res.body.data.session_uuid;
  }
  await api.post(`/api/v1/conversations/${uuid}/close`).expect(200);
  return session;
}

/** Waits until the proposer has finished with the session (its inbox record commits with its effects). */
async function handled(session: string): Promise<void> {
  const message = await eventually(() => closedMessages.find((m) => m.session === session));
  await eventually(async () => (await sql('select 1 from bus_inbox where consumer = ? and message_id = ?', [PROPOSER, message.id])).length > 0);
}

/**
 * The model's answer, built from the schema it was asked for: a string is a field's
 * value, a boolean a stage's `reached`; members not given are null / not reached.
 */
const answer =
  (given: Record<string, string | boolean | null> = {}) =>
  (request: FakeLlmRequest): FakeLlmReply => {
    const json: Json = {};
    for (const member of Object.keys(request.body.response_format.json_schema.schema.properties)) {
      const value = given[member];
      if (member.startsWith('p_')) json[member] = { reached: value === true, reason: `R-${member}` };
      else json[member] = { value: typeof value === 'string' ? value : null, reason: `R-${member}` };
    }
    return { json };
  };

const requestsAbout = (text: string) => server.requests.filter((request) => JSON.stringify(request.body?.messages ?? []).includes(text));
const promptOf = (request: FakeLlmRequest): string => (request.body?.messages ?? []).map((message: Json) => message.content).join('\n');

async function approvalsOf(api: Api, contact: string, query = ''): Promise<Json[]> {
  return (await api.get(`/api/v1/contact-approvals?contact_uuid=${contact}${query}`).expect(200)).body.data.items;
}

/** A tenant with an agent and a contact, these analyzers (an `f_` one with `dataType` gets its field) and these other fields. */
async function setup(
  analyzers: Array<[string, Json?]>,
  contact: ContactValues = {},
  fields: Array<[string, string]> = [],
): Promise<{ tenant: TestTenant; agent: string; contact: string }> {
  const tenant = await kit.createTenant();
  for (const [key, dataType] of fields) await createField(tenant, key, dataType);
  for (const [id, extra] of analyzers) {
    if (id.startsWith('f_') && extra?.dataType) await createField(tenant, id.slice(2), extra.dataType);
    const { dataType: _, ...body } = extra ?? {};
    await createAnalyzer(tenant.api, id, body);
  }
  return { tenant, agent: await createAgent(tenant.api), contact: await createContact(tenant, contact) };
}

describe('the session.closed consumer', () => {
  it('asks the model once for every enabled analyzer, and makes a pending approval of each answer that changes the contact', async () => {
    const { tenant, agent, contact } = await setup([['b_company'], ['f_budget', { dataType: 'number' }], ['p_qualified'], ['b_city', { enabled: false }]]);
    const words = uniqueText();
    server.reply(answer({ b_company: 'Acme Corp', f_budget: ' 5000 ', p_qualified: true }));
    const session = await closedSession(tenant.api, agent, contact, [`I work at Acme Corp ${words}, budget 5000`, 'Great, noted.']);
    await handled(session);

    const [request, ...more] = requestsAbout(words);
    expect(more).toHaveLength(0);
    const format = request.body.response_format.json_schema;
    expect(format.name).toBe('contact_updates');
    expect(format.schema.required).toEqual(['b_company', 'f_budget', 'p_qualified']);
    expect(format.schema.properties.b_company).toMatchObject({ required: ['value', 'reason'], properties: { value: { type: ['string', 'null'] } } });
    expect(format.schema.properties.p_qualified).toMatchObject({ required: ['reached', 'reason'], properties: { reached: { type: 'boolean' } } });
    const prompt = promptOf(request);
    expect(prompt).toContain('I-b_company: what the session says about it');
    expect(prompt).not.toContain('I-b_city');
    // The transcript is fenced as material, not instructions.
    expect(prompt).toMatch(/<transcript>\n\[[^\]]+\] customer: I work at Acme Corp ref-\w+, budget 5000\n\[[^\]]+\] agent: Great, noted.\n<\/transcript>/);

    const approvals = await approvalsOf(tenant.api, contact);
    expect(approvals.map((a) => a.analyzer_id).sort()).toEqual(['b_company', 'f_budget', 'p_qualified']);
    const byId = Object.fromEntries(approvals.map((a) => [a.analyzer_id, a]));
    expect(byId.b_company).toEqual({
      uuid: expect.any(String),
      contact_uuid: contact,
      analyzer_id: 'b_company',
      field: 'company',
      current_value: null,
      proposed_value: 'Acme Corp',
      session_uuid: session,
      reason: 'R-b_company',
      status: 'pending',
      decided_at: null,
      created_at: expect.stringMatching(ISO),
    });
    // A custom field's value is typed by the field: "5000" is the number 5000.
    expect(byId.f_budget).toMatchObject({ field: 'custom_fields.budget', current_value: null, proposed_value: 5000, status: 'pending' });
    expect(byId.p_qualified).toMatchObject({ field: 'pipeline_stage', current_value: null, proposed_value: 'qualified', status: 'pending' });
    // Nothing is written until approved.
    expect(await contactOf(tenant, contact)).toMatchObject({ company: null, pipeline_stage: null, custom_fields: {} });
    const usage = await eventually(async () => (await sql('select purpose from llm_usage where tenant_uuid = ?', [tenant.tenant.uuid]))[0]);
    expect(usage.purpose).toBe('contacts.analyzers');
  });

  it('asks the model with no transaction open (the consumer’s prepare): none waits on the answer', async () => {
    const { tenant, agent, contact } = await setup([['b_company']]);
    const words = uniqueText();
    server.reply((request) => ({ ...answer({ b_company: 'Slowly Inc' })(request), delayMs: 1500 }));
    const session = await closedSession(tenant.api, agent, contact, [`We are Slowly Inc ${words}`, 'Noted.']);
    await eventually(() => requestsAbout(words).length === 1);
    // While the model thinks: no connection of this database in a transaction that has been open for a while.
    expect(await transactionsOpenLongerThan(kit, 500, { samples: 5 })).toEqual([]);
    await handled(session);
    expect((await approvalsOf(tenant.api, contact)).map((a) => a.proposed_value)).toEqual(['Slowly Inc']);
  });

  it('makes no approval for a null value, a stage not reached, or a value the contact already has', async () => {
    const { tenant, agent, contact } = await setup([['b_company'], ['b_city'], ['b_phone_number'], ['p_won'], ['p_lead']], {
      company: 'Acme',
      phone_number: '+34600000001',
      pipeline_stage: 'lead',
    });
    const words = uniqueText();
    // The same phone written otherwise is the same phone.
    server.reply(answer({ b_company: 'Acme', b_city: null, b_phone_number: '+34 600 00 00 01', p_won: false, p_lead: true }));
    const session = await closedSession(tenant.api, agent, contact, [`Still at Acme ${words}`, 'Good.']);
    await handled(session);
    expect(requestsAbout(words)).toHaveLength(1);
    expect(await approvalsOf(tenant.api, contact)).toEqual([]);
  });

  it('with auto_approve, the approval is approved at once and the field written', async () => {
    const { tenant, agent, contact } = await setup([['b_city', { auto_approve: true }], ['b_company']], { city: 'Lyon' });
    server.reply(answer({ b_city: 'Madrid', b_company: 'Initech' }));
    const session = await closedSession(tenant.api, agent, contact, ['I moved to Madrid, I work at Initech', 'Noted.']);
    await handled(session);

    const approvals = await approvalsOf(tenant.api, contact);
    const byId = Object.fromEntries(approvals.map((a) => [a.analyzer_id, a]));
    expect(byId.b_city).toMatchObject({ field: 'city', current_value: 'Lyon', proposed_value: 'Madrid', status: 'approved', decided_at: expect.stringMatching(ISO) });
    expect(byId.b_company).toMatchObject({ status: 'pending', decided_at: null });
    expect(await contactOf(tenant, contact)).toMatchObject({ city: 'Madrid', company: null });
  });

  it('with auto_approve, a value the field refuses or another contact’s email stays pending, saying why', async () => {
    const { tenant, agent, contact } = await setup([['b_email', { auto_approve: true }], ['f_visits', { dataType: 'number', auto_approve: true }]]);
    await createContact(tenant, { name: 'Other', email: 'taken@example.com' });
    server.reply(answer({ b_email: 'Taken@Example.com', f_visits: 'a few' }));
    const session = await closedSession(tenant.api, agent, contact, ['Write to taken@example.com; I came a few times', 'OK']);
    await handled(session);

    const byId = Object.fromEntries((await approvalsOf(tenant.api, contact)).map((a) => [a.analyzer_id, a]));
    expect(byId.b_email).toMatchObject({
      status: 'pending',
      proposed_value: 'taken@example.com',
      reason: 'R-b_email Not approved automatically: another contact already has this email.',
    });
    expect(byId.f_visits).toMatchObject({ status: 'pending', proposed_value: 'a few', reason: 'R-f_visits Not approved automatically: custom_fields.visits must be a finite number.' });
    expect(await contactOf(tenant, contact)).toMatchObject({ email: expect.stringMatching(/^ref-\w+@example\.com$/), custom_fields: {} });
  });

  it('a newer suggestion for the same field replaces the pending one', async () => {
    const { tenant, agent, contact } = await setup([['b_company'], ['p_demo'], ['p_won']]);
    server.reply(answer({ b_company: 'Acme', p_demo: true }));
    const first = await closedSession(tenant.api, agent, contact, ['I work at Acme, show me a demo', 'Sure']);
    await handled(first);
    const before = await approvalsOf(tenant.api, contact);
    expect(before).toHaveLength(2);

    // Both stages reached in one session: the stage of the analyzer created last wins.
    server.reply(answer({ b_company: 'Globex', p_demo: true, p_won: true }));
    const second = await closedSession(tenant.api, agent, contact, ['Actually I moved to Globex, and I buy', 'Welcome']);
    await handled(second);
    const after = await approvalsOf(tenant.api, contact);
    expect(after.map((a) => [a.field, a.proposed_value, a.session_uuid, a.status]).sort()).toEqual([
      ['company', 'Globex', second, 'pending'],
      ['pipeline_stage', 'won', second, 'pending'],
    ]);
    for (const old of before) await tenant.api.get(`/api/v1/contact-approvals/${old.uuid}`).expect(404);
  });

  it('a decided approval is not replaced: it stays beside the new pending one', async () => {
    const { tenant, agent, contact } = await setup([['b_company']]);
    server.reply(answer({ b_company: 'Acme' }));
    await handled(await closedSession(tenant.api, agent, contact, ['Acme', 'ok']));
    const [rejected] = await approvalsOf(tenant.api, contact);
    await tenant.api.post(`/api/v1/contact-approvals/${rejected.uuid}/reject`).expect(200);

    server.reply(answer({ b_company: 'Acme' }));
    await handled(await closedSession(tenant.api, agent, contact, ['Acme, really', 'ok']));
    const approvals = await approvalsOf(tenant.api, contact);
    expect(approvals.map((a) => a.status)).toEqual(['pending', 'rejected']);
  });

  it('makes no call for a session without contact, an unknown contact, or a tenant without enabled analyzers', async () => {
    const { tenant, agent, contact } = await setup([['b_company', { enabled: false }]]);
    const words = uniqueText();
    const sessions = [
      await closedSession(tenant.api, agent, contact, [`disabled ${words}`, 'ok']),
      await closedSession(tenant.api, agent, null, [`nobody ${words}`, 'ok']),
    ];
    await createAnalyzer(tenant.api, 'b_city');
    sessions.push(await closedSession(tenant.api, agent, null, [`still nobody ${words}`, 'ok']));
    // A conversation only takes a contact of the tenant: the contact is unknown by the time it closes (deleted meanwhile).
    const stranger = await createContact(tenant, { name: 'Stranger' });
    sessions.push(await closedSession(tenant.api, agent, stranger, [`a stranger ${words}`, 'ok'], () => tenant.api.delete(`/api/v1/contacts/${stranger}`).expect(200)));
    for (const session of sessions) await handled(session);
    expect(requestsAbout(words)).toHaveLength(0);
    expect(await approvalsOf(tenant.api, contact)).toEqual([]);
  });

  it('an analyzer whose custom field was deleted is left out of the call', async () => {
    const { tenant, agent, contact } = await setup([['f_gone', { dataType: 'text' }], ['b_company']]);
    await deleteField(tenant, 'gone');
    const words = uniqueText();
    server.reply(answer({ b_company: 'Acme' }));
    await handled(await closedSession(tenant.api, agent, contact, [`Acme ${words}`, 'ok']));
    const [request] = requestsAbout(words);
    expect(request.body.response_format.json_schema.schema.required).toEqual(['b_company']);
  });

  it('an unavailable model (HTTP 500) is retried by the bus, and the next delivery’s answer is used', async () => {
    const { tenant, agent, contact } = await setup([['b_company']]);
    const words = uniqueText();
    server.reply({ status: 500, error: 'overloaded' }, answer({ b_company: 'Acme' }));
    const session = await closedSession(tenant.api, agent, contact, [`Acme ${words}`, 'ok']);
    await handled(session);
    expect(requestsAbout(words)).toHaveLength(2);
    expect((await approvalsOf(tenant.api, contact)).map((a) => a.proposed_value)).toEqual(['Acme']);
    const message = closedMessages.find((m) => m.session === session);
    expect(kit.logs.filter((line) => line.message === 'message handler failed; will retry' && line.consumer === PROPOSER && line.message_id === message?.id)).toHaveLength(1);
  });

  it('an answer off the schema is not retried: the members that conform are still used', async () => {
    const { tenant, agent, contact } = await setup([['b_company'], ['b_city']]);
    const words = uniqueText();
    server.reply({ json: { b_company: { value: 'Acme', reason: 'said so' }, b_city: { value: 42 } } });
    const session = await closedSession(tenant.api, agent, contact, [`Acme ${words}`, 'ok']);
    await handled(session);
    expect(requestsAbout(words)).toHaveLength(1);
    expect((await approvalsOf(tenant.api, contact)).map((a) => [a.field, a.proposed_value])).toEqual([['company', 'Acme']]);
    expect(kit.logs.some((line) => line.message === 'contact analyzers failed' && line.session_uuid === session && line.salvaged === true)).toBe(true);
  });
});

describe('approve and reject', () => {
  /** A contact with pending approvals for these analyzers' answers. */
  async function pending(analyzers: Array<[string, Json?]>, given: Record<string, string | boolean>, contactValues: ContactValues = {}, fields: Array<[string, string]> = []) {
    const { tenant, agent, contact } = await setup(analyzers, contactValues, fields);
    server.reply(answer(given));
    await handled(await closedSession(tenant.api, agent, contact, ['Here is what I tell you', 'Thanks']));
    const byId = Object.fromEntries((await approvalsOf(tenant.api, contact)).map((a) => [a.analyzer_id, a]));
    return { tenant, contact, byId };
  }

  it('approve writes a built-in field and answers the approved approval; a second decision is a 409', async () => {
    const { tenant, contact, byId } = await pending([['b_phone_number']], { b_phone_number: '+34 611 22 33 44' });
    const approval = byId.b_phone_number;
    expect(approval.proposed_value).toBe('+34611223344');
    const res = await tenant.api.post(`/api/v1/contact-approvals/${approval.uuid}/approve`).expect(200);
    expect(res.body).toEqual({ data: { ...approval, status: 'approved', decided_at: expect.stringMatching(ISO) } });
    expect(await contactOf(tenant, contact)).toMatchObject({ phone_number: '+34611223344' });
    await tenant.api.get(`/api/v1/contact-approvals/${approval.uuid}`).expect(200, res.body);

    const conflict = { success: false, message: 'Contact approval is already approved', data: [] };
    await tenant.api.post(`/api/v1/contact-approvals/${approval.uuid}/approve`).expect(409, conflict);
    await tenant.api.post(`/api/v1/contact-approvals/${approval.uuid}/reject`).expect(409, conflict);
  });

  it('approve writes a custom field (typed) and the pipeline stage', async () => {
    const { tenant, contact, byId } = await pending([['f_budget', { dataType: 'number' }], ['f_vip', { dataType: 'boolean' }], ['p_qualified']], {
      f_budget: '1200.5',
      f_vip: 'true',
      p_qualified: true,
    }, { custom_fields: { keep: 'me' }, pipeline_stage: 'lead' }, [['keep', 'text']]);
    expect(byId.p_qualified).toMatchObject({ current_value: 'lead', proposed_value: 'qualified' });
    for (const id of ['f_budget', 'f_vip', 'p_qualified']) await tenant.api.post(`/api/v1/contact-approvals/${byId[id].uuid}/approve`).expect(200);
    expect(await contactOf(tenant, contact)).toMatchObject({ pipeline_stage: 'qualified', custom_fields: { keep: 'me', budget: 1200.5, vip: true } });
  });

  it('reject leaves the contact as it was; rejecting again is a 409', async () => {
    const { tenant, contact, byId } = await pending([['b_company']], { b_company: 'Acme' }, { company: 'Old Co' });
    const res = await tenant.api.post(`/api/v1/contact-approvals/${byId.b_company.uuid}/reject`).expect(200);
    expect(res.body.data).toMatchObject({ status: 'rejected', decided_at: expect.stringMatching(ISO), proposed_value: 'Acme' });
    expect(await contactOf(tenant, contact)).toMatchObject({ company: 'Old Co' });
    await tenant.api.post(`/api/v1/contact-approvals/${byId.b_company.uuid}/reject`).expect(409, { success: false, message: 'Contact approval is already rejected', data: [] });
    await tenant.api.post(`/api/v1/contact-approvals/${byId.b_company.uuid}/approve`).expect(409);
  });

  it('a phone or email another contact has is a 409, and nothing is written', async () => {
    const { tenant, contact, byId } = await pending([['b_phone_number'], ['b_email']], { b_phone_number: '+34600111222', b_email: 'ana@example.com' });
    await createContact(tenant, { name: 'Other', phone_number: '+34600111222', email: 'ana@example.com' });
    const before = await contactOf(tenant, contact);
    for (const id of ['b_phone_number', 'b_email']) {
      const res = await tenant.api.post(`/api/v1/contact-approvals/${byId[id].uuid}/approve`).expect(409);
      expect(res.body.message).toMatch(/^Contact approval cannot be applied: another contact already has this (phone number|email)$/);
      expect((await tenant.api.get(`/api/v1/contact-approvals/${byId[id].uuid}`).expect(200)).body.data.status).toBe('pending');
    }
    expect(await contactOf(tenant, contact)).toEqual(before);
  });

  it('a value the field refuses is a 422 at proposed_value; a deleted custom field a 409', async () => {
    const { tenant, contact, byId } = await pending([['f_visits', { dataType: 'number' }], ['f_site', { dataType: 'url' }]], { f_visits: 'many', f_site: 'https://acme.example/' });
    const invalid = await tenant.api.post(`/api/v1/contact-approvals/${byId.f_visits.uuid}/approve`).expect(422);
    expect(invalid.body.errors).toEqual({ proposed_value: ['custom_fields.visits must be a finite number'] });
    await deleteField(tenant, 'site');
    const gone = await tenant.api.post(`/api/v1/contact-approvals/${byId.f_site.uuid}/approve`).expect(409);
    expect(gone.body.message).toBe('Contact approval cannot be applied: the contact field "site" no longer exists');
    expect(await contactOf(tenant, contact)).toMatchObject({ custom_fields: {} });
    // Still pending: it can be rejected.
    await tenant.api.post(`/api/v1/contact-approvals/${byId.f_visits.uuid}/reject`).expect(200);
  });

  it('two approvals of one approval at once: one 200, one 409', async () => {
    const { tenant, byId } = await pending([['b_company']], { b_company: 'Acme' });
    const statuses = await Promise.all([1, 2].map(() => tenant.api.post(`/api/v1/contact-approvals/${byId.b_company.uuid}/approve`).then((res) => res.status)));
    expect(statuses.sort()).toEqual([200, 409]);
  });
});

describe('GET /api/v1/contact-approvals', () => {
  it('lists newest first and filters by status, contact_uuid and analyzer_id', async () => {
    const { tenant, agent, contact } = await setup([['b_company'], ['b_city']]);
    const other = await createContact(tenant, { name: 'Bob' });
    server.reply(answer({ b_company: 'Acme', b_city: 'Paris' }));
    await handled(await closedSession(tenant.api, agent, contact, ['Acme in Paris', 'ok']));
    server.reply(answer({ b_company: 'Globex' }));
    await handled(await closedSession(tenant.api, agent, other, ['Globex', 'ok']));

    const all = (await tenant.api.get('/api/v1/contact-approvals').expect(200)).body;
    expect(all.data.pagination).toMatchObject({ total: 3, current_page: 1, per_page: 25 });
    expect(all.data.items[0]).toMatchObject({ contact_uuid: other, proposed_value: 'Globex' });
    const createdAt = all.data.items.map((a: Json) => a.created_at);
    expect([...createdAt].sort().reverse()).toEqual(createdAt);

    const cityApproval = all.data.items.find((a: Json) => a.analyzer_id === 'b_city');
    await tenant.api.post(`/api/v1/contact-approvals/${cityApproval.uuid}/approve`).expect(200);
    const list = async (query: string) => (await tenant.api.get(`/api/v1/contact-approvals?${query}`).expect(200)).body.data.items.map((a: Json) => a.proposed_value).sort();
    expect(await list('status=pending')).toEqual(['Acme', 'Globex']);
    expect(await list('status=approved')).toEqual(['Paris']);
    expect(await list('status=rejected')).toEqual([]);
    expect(await list(`contact_uuid=${contact}`)).toEqual(['Acme', 'Paris']);
    expect(await list('analyzer_id=b_company')).toEqual(['Acme', 'Globex']);
    expect(await list(`analyzer_id=b_company&contact_uuid=${other}&status=pending`)).toEqual(['Globex']);
    expect(await list('per_page=1&page=3')).toHaveLength(1);
    await tenant.api.get('/api/v1/contact-approvals?status=maybe').expect(422);
    // Another tenant sees none of them.
    expect((await kit.api.get(`/api/v1/contact-approvals?contact_uuid=${contact}`).expect(200)).body.data.items).toEqual([]);
  });

  it('an unknown approval is a 404 on every route', async () => {
    const missing = { success: false, message: 'Contact approval not found', data: [] };
    const uuid = newUuid();
    await kit.api.get(`/api/v1/contact-approvals/${uuid}`).expect(404, missing);
    await kit.api.post(`/api/v1/contact-approvals/${uuid}/approve`).expect(404, missing);
    await kit.api.post(`/api/v1/contact-approvals/${uuid}/reject`).expect(404, missing);
  });
});
