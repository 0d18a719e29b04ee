import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS] });
});
afterAll(() => kit?.stop());

const create = async (body: Record<string, unknown> = {}) => (await kit.api.post('/api/v1/agents').send({ name: 'Reception', ...body }).expect(201)).body.data;
const read = async (uuid: string) => (await kit.api.get(`/api/v1/agents/${uuid}`).expect(200)).body.data;

/** SQL statements the ORM's connection runs while `fn` runs. */
async function statementsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const logger = kit.kernel.orm.config.getLogger();
  const spy = jest.spyOn(logger, 'logQuery');
  try {
    await fn();
    return spy.mock.calls.map(([context]) => String(context.query));
  } finally {
    spy.mockRestore();
  }
}

describe('POST /api/v1/agents', () => {
  it('creates a pending agent with every member, defaults filled in, and lists with uuids', async () => {
    const agent = await create({
      role: 'Receptionist',
      language: 'es-ES',
      timezone: 'Europe/Madrid',
      guidelines: [{ content: 'Second', order: 2 }, { content: 'First', order: 1 }],
      training: [{ content: 'How much?', intent: 'pricing', response: '10 EUR' }],
      settings: { voice: { interaction: { max_silence_prompts: 5 } } },
    });
    expect(agent).toMatchObject({ name: 'Reception', role: 'Receptionist', status: 'pending', language: 'es-ES', timezone: 'Europe/Madrid', custom_llm_url: null });
    expect(agent.agent_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent.guidelines.map((g: any) => g.content)).toEqual(['First', 'Second']);
    expect(agent.guidelines[0].uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent.training).toEqual([{ uuid: expect.any(String), content: 'How much?', intent: 'pricing', response: '10 EUR' }]);
    expect(agent.settings.voice.interaction.max_silence_prompts).toBe(5);
    // Members the client did not send show their effective defaults.
    expect(agent.settings.voice.call_behavior.max_call_duration_seconds).toBe(1800);
    expect(agent.settings.text.confidence_controls.min_confidence_threshold).toBe(0.6);
    expect(agent.appointments).toEqual({ enabled: false, random_assignment: false, schedule_assignments: [] });
    for (const list of ['notes', 'procedures', 'intents', 'webhooks', 'routing_rules', 'guard_rules', 'phone_numbers', 'channels']) expect(agent[list]).toEqual([]);
    expect(agent.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await read(agent.agent_uuid)).toEqual(agent);
  });

  it('requires a name', async () => {
    const res = await kit.api.post('/api/v1/agents').send({ role: 'x' }).expect(422);
    expect(res.body.errors).toEqual({ name: ['is required'] });
  });

  it('ignores read-only members, so what was read can be sent back', async () => {
    const agent = await create({ guidelines: [{ content: 'Be brief', order: 1 }] });
    const res = await kit.api.put(`/api/v1/agents/${agent.agent_uuid}`).send(agent).expect(200);
    expect(res.body.data.status).toBe('pending');
    expect(res.body.data.guidelines.map((g: any) => [g.content, g.order])).toEqual([['Be brief', 1]]);
  });

  it('fills appointment assignments with defaults and keeps what was sent', async () => {
    const schedule = '0190d5c2-0000-7000-8000-000000000001';
    const agent = await create({
      appointments: { enabled: true, schedule_assignments: [{ schedule_uuid: schedule, slot_rules: { offer_slots_from: '2_hours' }, cancellation: { min_cancellation_notice: '24_hours' } }] },
    });
    const [assignment] = agent.appointments.schedule_assignments;
    expect(agent.appointments.enabled).toBe(true);
    expect(assignment.schedule_uuid).toBe(schedule);
    expect(assignment.slot_rules.offer_slots_from).toBe('2_hours');
    expect(assignment.slot_rules.suggestion_priority).toBe('nearest');
    expect(assignment.approval.expected_response_time).toBe('5_min');
  });
});

describe('PUT /api/v1/agents/{uuid}', () => {
  it('replaces members present and leaves absent ones as they are', async () => {
    const agent = await create({ role: 'Receptionist', tone: 'Warm', notes: [{ content: 'n', order: 1 }] });
    const res = await kit.api.put(`/api/v1/agents/${agent.agent_uuid}`).send({ tone: 'Formal' }).expect(200);
    expect(res.body.data).toMatchObject({ role: 'Receptionist', tone: 'Formal', name: 'Reception' });
    expect(res.body.data.notes).toEqual(agent.notes);
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
  });

  it('merges settings by group and member: one member sent changes only that member', async () => {
    const agent = await create({
      settings: {
        voice: { call_behavior: { max_call_duration_seconds: 600, audio_recording: true }, interaction: { inbound_first_message: 'Hi' } },
        text: { personality: { emoji_usage: 'Some' } },
      },
    });
    const res = await kit.api
      .put(`/api/v1/agents/${agent.agent_uuid}`)
      .send({ settings: { voice: { interaction: { customer_speak_first: true } } } })
      .expect(200);
    const voice = res.body.data.settings.voice;
    expect(voice.call_behavior).toEqual({ ...agent.settings.voice.call_behavior, max_call_duration_seconds: 600, audio_recording: true });
    expect(voice.interaction).toEqual({ ...agent.settings.voice.interaction, inbound_first_message: 'Hi', customer_speak_first: true });
    expect(res.body.data.settings.text).toEqual(agent.settings.text);
  });

  it('replaces open objects whole, so keys can be removed from them', async () => {
    const agent = await create({ settings: { voice: { normalizers: { outbound: { prefix: '+34', strip: '0' } } } } });
    const res = await kit.api
      .put(`/api/v1/agents/${agent.agent_uuid}`)
      .send({ settings: { voice: { normalizers: { outbound: { prefix: '+1' } } } } })
      .expect(200);
    expect(res.body.data.settings.voice.normalizers).toEqual({ outbound: { prefix: '+1' }, inbound: {} });
  });

  it('replaces a list that is present, with new uuids, and keeps lists that are absent', async () => {
    const agent = await create({ guidelines: [{ content: 'a', order: 1 }], training: [{ content: 't' }] });
    const res = await kit.api
      .put(`/api/v1/agents/${agent.agent_uuid}`)
      .send({ guidelines: [{ uuid: agent.guidelines[0].uuid, content: 'b', order: 1 }, { content: 'c' }] })
      .expect(200);
    expect(res.body.data.guidelines.map((g: any) => [g.content, g.order])).toEqual([
      ['b', 1],
      ['c', 2],
    ]);
    expect(res.body.data.training).toEqual(agent.training);
  });

  it('answers 404 for an unknown agent and for an agent of another tenant', async () => {
    await kit.api.put('/api/v1/agents/0190d5c2-0000-7000-8000-000000000009').send({ tone: 'x' }).expect(404);
    const other = await kit.createTenant();
    const theirs = (await other.api.post('/api/v1/agents').send({ name: 'Theirs' }).expect(201)).body.data;
    const res = await kit.api.put(`/api/v1/agents/${theirs.agent_uuid}`).send({ tone: 'x' }).expect(404);
    expect(res.body).toEqual({ success: false, message: 'Agent not found', data: [] });
    expect((await other.api.get(`/api/v1/agents/${theirs.agent_uuid}`).expect(200)).body.data.tone).toBe('');
  });
});

describe('validation of the agent body', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown language', { language: 'xx-XX' }, 'language'],
    ['a language in the wrong case', { language: 'en-us' }, 'language'],
    ['an unknown voice language', { settings: { voice: { voice_profile: { language: 'klingon' } } } }, 'settings.voice.voice_profile.language'],
    ['a time zone that is not IANA', { timezone: 'Mars/Olympus' }, 'timezone'],
    ['an offset instead of a zone', { timezone: '+01:00' }, 'timezone'],
    ['a working-hours time zone that is not IANA', { settings: { text: { working_hours: { timezone: 'CET+5' } } } }, 'settings.text.working_hours.timezone'],
    ['a confidence threshold above 1', { settings: { text: { confidence_controls: { min_confidence_threshold: 1.5 } } } }, 'settings.text.confidence_controls.min_confidence_threshold'],
    ['a clock string that is not one', { settings: { text: { working_hours: { start: '25 PM' } } } }, 'settings.text.working_hours.start'],
    ['an integer member given a string', { settings: { voice: { interaction: { max_silence_prompts: '3' } } } }, 'settings.voice.interaction.max_silence_prompts'],
    ['a boolean member given a number', { appointment_scheduling_enabled: 1 }, 'appointment_scheduling_enabled'],
    ['an unknown settings group', { settings: { voice: { karaoke: {} } } }, 'settings.voice.karaoke'],
    ['an unknown top-level member', { favourite_colour: 'blue' }, 'favourite_colour'],
    [
      'a span that is not <number>_<unit>',
      { appointments: { schedule_assignments: [{ schedule_uuid: '0190d5c2-0000-7000-8000-000000000001', rescheduling: { min_rescheduling_notice: 'two hours' } }] } },
      'appointments.schedule_assignments.0.rescheduling.min_rescheduling_notice',
    ],
    ['a guideline without content', { guidelines: [{ order: 1 }] }, 'guidelines.0.content'],
    ['a guard rule without when_condition', { guard_rules: [{ then_action: 'end_conversation', say_before_end: 'Bye' }] }, 'guard_rules.0.when_condition'],
    ['a forward guard rule without destination', { guard_rules: [{ when_condition: 'x', then_action: 'forward', destination_type: 'extension' }] }, 'guard_rules.0.destination'],
    ['an end guard rule without a closing line', { guard_rules: [{ when_condition: 'x', then_action: 'end_conversation' }] }, 'guard_rules.0.say_before_end'],
    ['a routing rule to an agent without its uuid', { routing_rules: [{ destination_type: 'agent' }] }, 'routing_rules.0.destination_agent_uuid'],
    [
      'a routing rule to an agent that does not exist',
      { routing_rules: [{ destination_type: 'agent', destination_agent_uuid: '0190d5c2-0000-7000-8000-00000000000a' }] },
      'routing_rules.0.destination_agent_uuid',
    ],
    ['a routing rule with a fractional priority', { routing_rules: [{ destination_type: 'extension', destination: '1', priority: 1.5 }] }, 'routing_rules.0.priority'],
    [
      'a procedure step calling an intent the agent does not have',
      { procedures: [{ name: 'p', steps: [{ order: 1, description: 'd', intent_uuid: '0190d5c2-0000-7000-8000-00000000000b' }] }] },
      'procedures.0.steps.0.intent_uuid',
    ],
    ['typing speeds upside down', { settings: { text: { timing_and_delay: { typing_speed_wpm_min: 80, typing_speed_wpm_max: 20 } } } }, 'settings.text.timing_and_delay.typing_speed_wpm_max'],
  ];

  it.each(cases)('refuses %s with 422 at its path, and writes nothing', async (_, body, field) => {
    const agent = await create();
    const res = await kit.api.put(`/api/v1/agents/${agent.agent_uuid}`).send({ tone: 'changed', ...body });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await read(agent.agent_uuid)).toEqual(agent);
  });

  it('reports every problem of a request at once', async () => {
    const res = await kit.api.post('/api/v1/agents').send({ name: 'x', language: 'xx', timezone: 'Nowhere/Land', guard_rules: [{ when_condition: 'x', then_action: 'forward' }] }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['guard_rules.0.destination_type', 'language', 'timezone']);
  });

  it('accepts an agent of this tenant as a destination, and refuses one of another tenant', async () => {
    const target = await create({ name: 'Sales' });
    const other = await kit.createTenant();
    const theirs = (await other.api.post('/api/v1/agents').send({ name: 'Theirs' }).expect(201)).body.data;
    const ok = await create({ routing_rules: [{ destination_type: 'agent', destination_agent_uuid: target.agent_uuid, department_name: 'Sales' }] });
    expect(ok.routing_rules[0]).toMatchObject({ destination_type: 'agent', destination_agent_uuid: target.agent_uuid, priority: 1, is_active: true });
    const res = await kit.api
      .post('/api/v1/agents')
      .send({ name: 'x', guard_rules: [{ when_condition: 'x', then_action: 'forward', destination_type: 'agent', destination_agent_uuid: theirs.agent_uuid }] })
      .expect(422);
    expect(res.body.errors).toEqual({ 'guard_rules.0.destination_agent_uuid': ['must be an agent of this tenant'] });
    const self = await kit.api
      .put(`/api/v1/agents/${ok.agent_uuid}`)
      .send({ routing_rules: [{ destination_type: 'agent', destination_agent_uuid: ok.agent_uuid }] })
      .expect(422);
    expect(self.body.errors['routing_rules.0.destination_agent_uuid']).toEqual(['must be another agent, not this one']);
  });
});

describe('status', () => {
  it('goes pending -> active <-> paused; a pending agent cannot be paused', async () => {
    const agent = await create();
    const refused = await kit.api.post(`/api/v1/agents/${agent.agent_uuid}/pause`).expect(409);
    expect(refused.body.success).toBe(false);
    expect((await kit.api.post(`/api/v1/agents/${agent.agent_uuid}/activate`).expect(200)).body.data.status).toBe('active');
    expect((await kit.api.post(`/api/v1/agents/${agent.agent_uuid}/activate`).expect(200)).body.data.status).toBe('active');
    expect((await kit.api.post(`/api/v1/agents/${agent.agent_uuid}/pause`).expect(200)).body.data.status).toBe('paused');
    expect((await kit.api.post(`/api/v1/agents/${agent.agent_uuid}/activate`).expect(200)).body.data.status).toBe('active');
  });

  it('filters the list by status', async () => {
    const active = await create({ name: 'Active one' });
    await kit.api.post(`/api/v1/agents/${active.agent_uuid}/activate`).expect(200);
    const res = await kit.api.get('/api/v1/agents?status=active&per_page=100').expect(200);
    expect(res.body.data.items.length).toBeGreaterThan(0);
    expect(res.body.data.items.every((a: any) => a.status === 'active')).toBe(true);
    expect(res.body.data.items.map((a: any) => a.agent_uuid)).toContain(active.agent_uuid);
  });
});

describe('GET /api/v1/agents', () => {
  it('pages the tenant’s agents, newest first, with whole agents', async () => {
    const other = await kit.createTenant();
    const mine = [await create({ name: 'p1' }), await create({ name: 'p2' }), await create({ name: 'p3' })];
    await other.api.post('/api/v1/agents').send({ name: 'not mine' }).expect(201);
    const first = (await kit.api.get('/api/v1/agents?per_page=2').expect(200)).body;
    expect(first.data.items.map((a: any) => a.name)).toEqual(['p3', 'p2']);
    expect(first.data.pagination).toMatchObject({ current_page: 1, per_page: 2, has_more: true });
    expect(first.data.items[0]).toEqual(await read(mine[2].agent_uuid));
    const all = (await kit.api.get('/api/v1/agents?per_page=100').expect(200)).body.data.items;
    expect(all.some((a: any) => a.name === 'not mine')).toBe(false);
  });
});

describe('DELETE /api/v1/agents/{uuid}', () => {
  it('deletes the agent and its lists; a later read is 404', async () => {
    const agent = await create({ guidelines: [{ content: 'g', order: 1 }] });
    const res = await kit.api.delete(`/api/v1/agents/${agent.agent_uuid}`).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Agent deleted', data: { deleted: true } });
    await kit.api.get(`/api/v1/agents/${agent.agent_uuid}`).expect(404);
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from agent_guidelines where agent_uuid = ?', [agent.agent_uuid]);
    expect(row.n).toBe(0);
  });

  it('refuses with 409 while another agent’s rule forwards to it', async () => {
    const target = await create({ name: 'Target' });
    const source = await create({ guard_rules: [{ when_condition: 'angry', then_action: 'forward', destination_type: 'agent', destination_agent_uuid: target.agent_uuid }] });
    const res = await kit.api.delete(`/api/v1/agents/${target.agent_uuid}`).expect(409);
    expect(res.body.message).toContain(source.guard_rules[0].uuid);
    await kit.api.put(`/api/v1/agents/${source.agent_uuid}`).send({ guard_rules: [] }).expect(200);
    await kit.api.delete(`/api/v1/agents/${target.agent_uuid}`).expect(200);
  });
});

describe('events', () => {
  it('announces agent.created, agent.updated (with what changed) and agent.deleted in the writing transaction', async () => {
    const spy = jest.spyOn(kit.kernel.bus, 'publish');
    try {
      const agent = await create();
      await kit.api.put(`/api/v1/agents/${agent.agent_uuid}`).send({ tone: 'x', notes: [] }).expect(200);
      await kit.api.put(`/api/v1/agents/${agent.agent_uuid}`).send({ language: 'nope' }).expect(422);
      await kit.api.delete(`/api/v1/agents/${agent.agent_uuid}`).expect(200);
      const calls = spy.mock.calls.filter(([, payload]) => (payload as any).agent_uuid === agent.agent_uuid);
      expect(calls.map(([topic]) => topic)).toEqual(['agent.created', 'agent.updated', 'agent.deleted']);
      expect((calls[1][1] as any).changed.sort()).toEqual(['notes', 'tone']);
      expect((calls[1][1] as any).agent.tone).toBe('x');
      expect(calls[2][1]).toEqual({ agent_uuid: agent.agent_uuid, name: 'Reception' });
    } finally {
      spy.mockRestore();
    }
  });
});

describe('GET /api/v1/language', () => {
  it('serves the catalog in the spec envelope', async () => {
    const res = await kit.api.get('/api/v1/language').expect(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.items.length).toBeGreaterThan(50);
    expect(res.body.data.items).toContainEqual({ code: 'pt-BR', name: expect.stringContaining('Portuguese'), native_name: expect.stringContaining('Português'), flag: '🇧🇷' });
  });
});

describe('reading a large agent', () => {
  it('takes the same, small number of SQL statements as reading an empty one (no N+1)', async () => {
    const big = await create({ name: 'Big' });
    const base = `/api/v1/agents/${big.agent_uuid}`;
    const intents: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await kit.api.post(`${base}/intents`).send({ key: `tool_${i}`, webhook: { url: 'https://example.com/t', auth_token: 'tok' } }).expect(200);
      intents.push(res.body.data.intents[i].intent_uuid);
    }
    for (let i = 0; i < 5; i++) await kit.api.post(`${base}/webhooks`).send({ url: `https://example.com/h${i}`, events: ['agent.updated'], secret: 'a-signing-secret-of-some-length' }).expect(200);
    for (let i = 0; i < 3; i++) await kit.api.post(`${base}/phone-numbers`).send({ number: `+1415555010${i}` }).expect(200);
    const target = await create({ name: 'Target' });
    await kit.api
      .put(base)
      .send({
        guidelines: Array.from({ length: 20 }, (_, i) => ({ content: `g${i}`, order: i })),
        notes: Array.from({ length: 20 }, (_, i) => ({ content: `n${i}`, order: i })),
        procedures: Array.from({ length: 5 }, (_, p) => ({ name: `p${p}`, steps: Array.from({ length: 5 }, (_, s) => ({ order: s, description: `s${s}`, intent_uuid: intents[s] })) })),
        training: Array.from({ length: 50 }, (_, i) => ({ content: `t${i}`, intent: 'x', response: 'y' })),
        routing_rules: Array.from({ length: 10 }, (_, i) => ({ destination_type: 'agent', destination_agent_uuid: target.agent_uuid, priority: i })),
        guard_rules: Array.from({ length: 5 }, () => ({ when_condition: 'c', then_action: 'end_conversation', say_before_end: 'bye' })),
      })
      .expect(200);

    const empty = await create({ name: 'Empty' });
    let bigBody: any;
    const forBig = await statementsDuring(async () => (bigBody = (await kit.api.get(base).expect(200)).body.data));
    const forEmpty = await statementsDuring(() => kit.api.get(`/api/v1/agents/${empty.agent_uuid}`).expect(200));
    expect(bigBody.guidelines).toHaveLength(20);
    expect(bigBody.procedures[0].steps).toHaveLength(5);
    expect(bigBody.training).toHaveLength(50);
    expect(bigBody.intents).toHaveLength(10);
    expect(bigBody.webhooks).toHaveLength(5);
    expect(bigBody.routing_rules).toHaveLength(10);
    expect(bigBody.guard_rules).toHaveLength(5);
    expect(bigBody.phone_numbers).toHaveLength(3);
    // The bus relay shares the connection pool's logger; its statements are not the request's.
    const requestOnly = (statements: string[]) => statements.filter((sql) => !sql.includes('bus_'));
    const agentReads = (statements: string[]) => requestOnly(statements).filter((sql) => /"?agents"? a\b|agent_/.test(sql));
    expect(agentReads(forBig)).toHaveLength(1);
    expect(agentReads(forEmpty)).toHaveLength(1);
    expect(requestOnly(forBig).length).toBeLessThanOrEqual(2);
  });
});
