import type { TestKernel } from '../../../core/testing';
import {
  activate,
  addToPool,
  createCampaign,
  createClosedRule,
  createContacts,
  createPool,
  readCampaign,
  startOutreachKit,
  transition,
  type Json,
} from './outreach-test-kit';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const RULE_NOT_FOUND = { success: false, message: 'Rule not found', data: [] };

let kit: TestKernel;
beforeAll(async () => {
  kit = await startOutreachKit();
});
afterAll(() => kit?.stop());

describe('rules: create, read, list, change', () => {
  it('creates a rule with the defaults, reads it back and lists it', async () => {
    const tenant = await kit.createTenant();
    const created = await tenant.api.post('/api/v1/rules').send({ name: '  Office hours ' }).expect(201);
    const rule = created.body.data;
    expect(rule).toEqual({
      uuid: expect.any(String),
      name: 'Office hours',
      weekdays: [1, 2, 3, 4, 5],
      start_time: '09:00',
      end_time: '18:00',
      timezone: 'UTC',
      max_attempts: 3,
      min_gap_minutes: 60,
      channel: null,
      is_active: true,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    await tenant.api.get(`/api/v1/rules/${rule.uuid}`).expect(200, { data: rule });

    const other = (
      await tenant.api
        .post('/api/v1/rules')
        .send({ name: 'Weekend texts', weekdays: [6, 7], start_time: '10:00', end_time: '13:30', timezone: 'Europe/Madrid', max_attempts: 20, min_gap_minutes: 10080, channel: 'sms', is_active: false })
        .expect(201)
    ).body.data;
    expect(other).toMatchObject({ weekdays: [6, 7], start_time: '10:00', end_time: '13:30', timezone: 'Europe/Madrid', max_attempts: 20, min_gap_minutes: 10080, channel: 'sms', is_active: false });

    const list = await tenant.api.get('/api/v1/rules').expect(200);
    expect(list.body.data.items.map((r: Json) => r.uuid)).toEqual([other.uuid, rule.uuid]);
    expect(list.body.data.pagination).toMatchObject({ total: 2, current_page: 1, per_page: 25, has_more: false });
    const inactive = await tenant.api.get('/api/v1/rules?is_active=false').expect(200);
    expect(inactive.body.data.items.map((r: Json) => r.uuid)).toEqual([other.uuid]);
  });

  it('changes only the members given, accepts what it read, and checks the merged window', async () => {
    const rule = (await kit.api.post('/api/v1/rules').send({ name: 'Calls', channel: 'call' }).expect(201)).body.data;
    const changed = (await kit.api.patch(`/api/v1/rules/${rule.uuid}`).send({ end_time: '20:00', channel: null }).expect(200)).body.data;
    expect(changed).toMatchObject({ ...rule, end_time: '20:00', channel: null, updated_at: expect.stringMatching(ISO) });
    await kit.api.patch(`/api/v1/rules/${rule.uuid}`).send(changed).expect(200);

    // 21:00 is after the stored end (20:00): the window as it would be stored is refused.
    const refused = await kit.api.patch(`/api/v1/rules/${rule.uuid}`).send({ start_time: '21:00' }).expect(422);
    expect(refused.body.errors).toEqual({ end_time: ['must be later than start_time'] });
    await kit.api.patch(`/api/v1/rules/${rule.uuid}`).send({ start_time: '21:00', end_time: '22:00' }).expect(200);
    await kit.api.patch(`/api/v1/rules/00000000-0000-7000-8000-000000000000`).send({ name: 'x' }).expect(404, RULE_NOT_FOUND);
  });

  it.each([
    [{ weekdays: [] }, 'weekdays'],
    [{ weekdays: [1, 1] }, 'weekdays'],
    [{ weekdays: [0] }, 'weekdays.0'],
    [{ weekdays: [8] }, 'weekdays.0'],
    [{ start_time: '9:00' }, 'start_time'],
    [{ end_time: '24:00' }, 'end_time'],
    [{ start_time: '18:00', end_time: '09:00' }, 'end_time'],
    [{ start_time: '10:00', end_time: '10:00' }, 'end_time'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ max_attempts: 0 }, 'max_attempts'],
    [{ max_attempts: 21 }, 'max_attempts'],
    [{ min_gap_minutes: -1 }, 'min_gap_minutes'],
    [{ min_gap_minutes: 10081 }, 'min_gap_minutes'],
    [{ channel: 'fax' }, 'channel'],
    [{ name: '   ' }, 'name'],
    [{ colour: 'red' }, 'colour'],
  ])('refuses %j with 422 at %s', async (body, path) => {
    const res = await kit.api.post('/api/v1/rules').send({ name: 'Bad', ...body }).expect(422);
    expect(Object.keys(res.body.errors)).toEqual([path]);
  });

  it('requires a name', async () => {
    const res = await kit.api.post('/api/v1/rules').send({}).expect(422);
    expect(res.body.errors).toEqual({ name: ['is required'] });
  });
});

describe('DELETE /api/v1/rules/{uuid}', () => {
  /** An active campaign with one waiting task (a closed rule keeps it waiting), with `rule` attached too. */
  async function activeCampaignWith(ruleUuid: string): Promise<Json> {
    const closed = await createClosedRule(kit.api);
    const campaign = await createCampaign(kit.api, { rule_uuids: [closed.uuid, ruleUuid] });
    const pool = await createPool(kit.api, campaign.uuid);
    await addToPool(kit.api, pool.uuid, await createContacts(kit.api, 1));
    return activate(kit.api, campaign.uuid);
  }

  it('deletes a rule attached to no campaign: {success, message, data: []}', async () => {
    const rule = (await kit.api.post('/api/v1/rules').send({ name: 'Loose' }).expect(201)).body.data;
    await kit.api.delete(`/api/v1/rules/${rule.uuid}`).expect(200, { success: true, message: 'Rule deleted', data: [] });
    await kit.api.get(`/api/v1/rules/${rule.uuid}`).expect(404, RULE_NOT_FOUND);
    await kit.api.delete(`/api/v1/rules/${rule.uuid}`).expect(404, RULE_NOT_FOUND);
  });

  it('refuses with 409 while an attached campaign is active, naming the status', async () => {
    const rule = (await kit.api.post('/api/v1/rules').send({ name: 'Busy' }).expect(201)).body.data;
    const campaign = await activeCampaignWith(rule.uuid);
    const res = await kit.api.delete(`/api/v1/rules/${rule.uuid}`).expect(409);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('status active'), data: [] });
    expect((await readCampaign(kit.api, campaign.uuid)).rule_uuids).toContain(rule.uuid);
    await kit.api.get(`/api/v1/rules/${rule.uuid}`).expect(200);
  });

  it('refuses with 409 while an attached campaign is in_process', async () => {
    const rule = (await kit.api.post('/api/v1/rules').send({ name: 'Busy' }).expect(201)).body.data;
    const campaign = await activeCampaignWith(rule.uuid);
    // Its task still waits: completing leaves it in_process until the task has run out.
    expect((await transition(kit.api, campaign.uuid, 'complete')).data.status).toBe('in_process');
    const res = await kit.api.delete(`/api/v1/rules/${rule.uuid}`).expect(409);
    expect(res.body.message).toContain('status in_process');
  });

  it('refuses with 409 while an attached campaign is importing', async () => {
    // No consumers run in a `serve` process without a broker: the activation stays importing.
    const serving = await startOutreachKit({ role: 'serve' });
    try {
      const rule = (await serving.api.post('/api/v1/rules').send({ name: 'Busy' }).expect(201)).body.data;
      const campaign = await createCampaign(serving.api, { rule_uuids: [rule.uuid] });
      expect((await transition(serving.api, campaign.uuid, 'activate')).data.status).toBe('importing');
      const res = await serving.api.delete(`/api/v1/rules/${rule.uuid}`).expect(409);
      expect(res.body.message).toContain('status importing');
    } finally {
      await serving.stop();
    }
  });

  it('names every blocking status at once', async () => {
    const rule = (await kit.api.post('/api/v1/rules').send({ name: 'Shared' }).expect(201)).body.data;
    await activeCampaignWith(rule.uuid);
    const finishing = await activeCampaignWith(rule.uuid);
    await transition(kit.api, finishing.uuid, 'complete');
    const res = await kit.api.delete(`/api/v1/rules/${rule.uuid}`).expect(409);
    expect(res.body.message).toContain('status active, in_process');
  });

  it('deletes and detaches a rule whose campaigns are draft, paused or completed', async () => {
    const rule = (await kit.api.post('/api/v1/rules').send({ name: 'Quiet' }).expect(201)).body.data;
    const keep = (await kit.api.post('/api/v1/rules').send({ name: 'Kept' }).expect(201)).body.data;
    const draft = await createCampaign(kit.api, { rule_uuids: [rule.uuid, keep.uuid] });
    const paused = await activeCampaignWith(rule.uuid);
    await transition(kit.api, paused.uuid, 'pause');
    const completed = await activeCampaignWith(rule.uuid);
    await transition(kit.api, completed.uuid, 'complete');
    expect((await transition(kit.api, completed.uuid, 'complete')).data.status).toBe('completed');

    await kit.api.delete(`/api/v1/rules/${rule.uuid}`).expect(200, { success: true, message: 'Rule deleted', data: [] });
    expect((await readCampaign(kit.api, draft.uuid)).rule_uuids).toEqual([keep.uuid]);
    expect((await readCampaign(kit.api, paused.uuid)).rule_uuids).not.toContain(rule.uuid);
    expect((await readCampaign(kit.api, completed.uuid)).rule_uuids).not.toContain(rule.uuid);
  });
});
