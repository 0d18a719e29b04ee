import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { addStep, check, createFlow, echo, flowWithTrigger, outline, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

/** Where new steps go (rule 1, rule 7), how positions follow, and how references follow their steps through inserts and deletes. */

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

const messageOf = (flow: Json, uuid: string) => flow.steps.find((step: Json) => step.uuid === uuid).config.message;
const stepIn = (flow: Json, uuid: string) => flow.steps.find((step: Json) => step.uuid === uuid);

async function refused(flowUuid: string, body: Json): Promise<Json> {
  const before = await readFlow(kit.api, flowUuid);
  const res = await kit.api.post(`/api/v1/flow/${flowUuid}/steps`).send(body).expect(422);
  expect(await readFlow(kit.api, flowUuid)).toEqual(before);
  return res.body.errors;
}

/** trigger, a, if (true: t1, t2; false: f1), z */
async function branchedFlow() {
  const { flow, trigger } = await flowWithTrigger(kit.api);
  const a = await addStep(kit.api, flow.uuid, echo('a'));
  const branch = await addStep(kit.api, flow.uuid, check());
  const z = await addStep(kit.api, flow.uuid, echo('z'));
  const inBranch = (key: string) => ({ parent_step_uuid: branch.uuid, branch_key: key });
  // Added out of display order on purpose: the false branch first.
  const f1 = await addStep(kit.api, flow.uuid, echo('f1', inBranch('false')));
  const t1 = await addStep(kit.api, flow.uuid, echo('t1', inBranch('true')));
  const t2 = await addStep(kit.api, flow.uuid, echo('t2', inBranch('true')));
  return { flow, trigger, a, branch, z, t1, t2, f1, inBranch };
}

describe('placement', () => {
  it('appends by default; insert_after_step_uuid inserts mid-chain and the steps after it move down', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const a = await addStep(kit.api, flow.uuid, echo('a'));
    await addStep(kit.api, flow.uuid, echo('c'));
    const b = await addStep(kit.api, flow.uuid, echo('b', { insert_after_step_uuid: a.uuid }));
    expect(b.position).toBe(3);
    const first = await addStep(kit.api, flow.uuid, echo('first', { insert_after_step_uuid: trigger.uuid }));
    expect(first.position).toBe(2);
    expect(outline(await readFlow(kit.api, flow.uuid))).toEqual(['1: kit.manual', '2: first', '3: a', '4: b', '5: c']);
  });

  it('lists a branching step’s children right after it, true before false, each branch in its own order', async () => {
    const { flow } = await branchedFlow();
    expect(outline(await readFlow(kit.api, flow.uuid))).toEqual(['1: kit.manual', '2: a', '3: kit.check', '4: t1', '5: t2', '6: f1', '7: z']);
  });

  it('inserts into a branch: after the parent itself (first in the branch), after a step of the branch, or after a branch step without naming the parent', async () => {
    const { flow, branch, t1, f1, inBranch } = await branchedFlow();
    await addStep(kit.api, flow.uuid, echo('t0', { ...inBranch('true'), insert_after_step_uuid: branch.uuid }));
    await addStep(kit.api, flow.uuid, echo('f0', { ...inBranch('false'), insert_after_step_uuid: branch.uuid }));
    await addStep(kit.api, flow.uuid, echo('t1b', { ...inBranch('true'), insert_after_step_uuid: t1.uuid }));
    const f2 = await addStep(kit.api, flow.uuid, echo('f2', { insert_after_step_uuid: f1.uuid }));
    expect(f2).toMatchObject({ parent_step_uuid: branch.uuid, branch_key: 'false' });
    expect(outline(await readFlow(kit.api, flow.uuid))).toEqual(['1: kit.manual', '2: a', '3: kit.check', '4: t0', '5: t1', '6: t1b', '7: t2', '8: f0', '9: f1', '10: f2', '11: z']);
  });

  it('puts a step inserted after a branching step (without parent) after its whole branches', async () => {
    const { flow, branch } = await branchedFlow();
    await addStep(kit.api, flow.uuid, echo('y', { insert_after_step_uuid: branch.uuid }));
    expect(outline(await readFlow(kit.api, flow.uuid))).toEqual(['1: kit.manual', '2: a', '3: kit.check', '4: t1', '5: t2', '6: f1', '7: y', '8: z']);
  });

  it('refuses an insert_after_step_uuid that is not in the flow, or not the parent or in its branch', async () => {
    const { flow, a, t1, inBranch } = await branchedFlow();
    const other = await flowWithTrigger(kit.api);
    expect(await refused(flow.uuid, echo('x', { insert_after_step_uuid: other.trigger.uuid }))).toEqual({ insert_after_step_uuid: ['is not a step of this flow'] });
    expect(await refused(flow.uuid, echo('x', { ...inBranch('false'), insert_after_step_uuid: t1.uuid }))).toEqual({
      insert_after_step_uuid: ['must be the parent step or a step of its "false" branch'],
    });
    expect(await refused(flow.uuid, echo('x', { ...inBranch('true'), insert_after_step_uuid: a.uuid }))).toEqual({
      insert_after_step_uuid: ['must be the parent step or a step of its "true" branch'],
    });
  });
});

describe('references follow their step', () => {
  it('are stored by step and read under the step’s new number after an insert before it', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const a = await addStep(kit.api, flow.uuid, echo('a'));
    const b = await addStep(kit.api, flow.uuid, echo('b'));
    const writer = await addStep(kit.api, flow.uuid, echo('{{step1.order.id}} then {{step3.echoed}}, {{ step2.echoed }}'));
    expect(writer.config.message).toBe('{{step1.order.id}} then {{step3.echoed}}, {{step2.echoed}}');

    await addStep(kit.api, flow.uuid, echo('new', { insert_after_step_uuid: a.uuid }));
    const after = await readFlow(kit.api, flow.uuid);
    expect(messageOf(after, writer.uuid)).toBe('{{step1.order.id}} then {{step4.echoed}}, {{step2.echoed}}');
    expect(stepIn(after, b.uuid).position).toBe(4);
    expect(stepIn(after, writer.uuid)).toMatchObject({ position: 5, status: 'ready' });
  });

  it('keep following through deletes; a reference to a deleted step reads {{deleted_step...}} and makes its step a draft saying which member', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const a = await addStep(kit.api, flow.uuid, echo('a'));
    const b = await addStep(kit.api, flow.uuid, echo('b'));
    const writer = await addStep(kit.api, flow.uuid, echo('{{step2.echoed}} and {{step3.echoed}}'));

    await kit.api.delete(`/api/v1/flow/${flow.uuid}/steps/${a.uuid}`).expect(200, { success: true, message: 'Step deleted', data: { deleted: true } });
    const after = await readFlow(kit.api, flow.uuid);
    expect(stepIn(after, b.uuid).position).toBe(2);
    expect(stepIn(after, writer.uuid)).toMatchObject({
      position: 3,
      config: { message: '{{deleted_step.echoed}} and {{step2.echoed}}' },
      status: 'draft',
      status_message: 'config.message refers to a deleted step',
    });
    const deploy = await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(422);
    expect(deploy.body.errors).toEqual({ 'steps.3': ['step 3 (kit.echo) is not ready: config.message refers to a deleted step'] });

    // Sent back as read, the dangling reference is refused; fixed, the step is ready again.
    const path = `/api/v1/flow/${flow.uuid}/steps/${writer.uuid}`;
    const resent = await kit.api.patch(path).send({ config: stepIn(after, writer.uuid).config }).expect(422);
    expect(Object.keys(resent.body.errors)).toEqual(['config.message']);
    const fixed = (await kit.api.patch(path).send({ config: { message: '{{step2.echoed}}' } }).expect(200)).body.data;
    expect(fixed).toMatchObject({ status: 'ready', status_message: null, config: { message: '{{step2.echoed}}' } });
  });

  it('deleting a branching step deletes its branch children; references into them dangle, others renumber', async () => {
    const { flow, a, branch, z } = await branchedFlow();
    const reader = await addStep(kit.api, flow.uuid, echo('{{step2.echoed}} {{step4.echoed}} {{step6.echoed}} {{step7.echoed}}'));
    const res = await kit.api.delete(`/api/v1/flow/${flow.uuid}/steps/${branch.uuid}`).expect(200);
    expect(res.body.message).toBe('Step deleted, with its 3 branch steps');
    const after = await readFlow(kit.api, flow.uuid);
    expect(outline(after)).toEqual(['1: kit.manual', '2: a', '3: z', '4: {{step2.echoed}} {{deleted_step.echoed}} {{deleted_step.echoed}} {{step3.echoed}}']);
    expect(stepIn(after, reader.uuid)).toMatchObject({ status: 'draft', status_message: 'config.message refers to a deleted step' });
    expect([stepIn(after, a.uuid).status, stepIn(after, z.uuid).status]).toEqual(['ready', 'ready']);
    const rows = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from flow_steps where flow_uuid = ?', [flow.uuid]);
    expect(rows[0].n).toBe(4);
  });

  it('inside a branch renumber when the branch above grows, and a step after the branching step may use either branch', async () => {
    const { flow, branch, t2, f1, inBranch } = await branchedFlow();
    const inFalse = await addStep(kit.api, flow.uuid, echo('{{step3.matched}} {{step6.echoed}}', inBranch('false')));
    const after = await addStep(kit.api, flow.uuid, echo('{{step5.echoed}} or {{step6.echoed}}'));
    await addStep(kit.api, flow.uuid, echo('t0', { ...inBranch('true'), insert_after_step_uuid: branch.uuid }));
    const read = await readFlow(kit.api, flow.uuid);
    expect(messageOf(read, inFalse.uuid)).toBe('{{step3.matched}} {{step7.echoed}}');
    expect(messageOf(read, after.uuid)).toBe('{{step6.echoed}} or {{step7.echoed}}');
    expect([stepIn(read, t2.uuid).position, stepIn(read, f1.uuid).position]).toEqual([6, 7]);
  });
});

describe('references that cannot be stored (422 at config.<member>)', () => {
  it('to a later step, to the step itself, to a missing step, or to a step in another branch', async () => {
    const { flow, inBranch, t1 } = await branchedFlow();
    expect(await refused(flow.uuid, echo('{{step9.echoed}}'))).toEqual({ 'config.message': ['step 9 does not exist (the flow has 8 steps)'] });
    expect(await refused(flow.uuid, echo('{{step8.echoed}}'))).toEqual({ 'config.message': [expect.stringContaining('step 8 does not come before this step (step 8)')] });
    // Placed after t1 (as step 5), the new step refers to what then is step 5 (itself) and 6 (t2, after it).
    expect(await refused(flow.uuid, echo('{{step5.echoed}}', { insert_after_step_uuid: t1.uuid }))).toEqual({ 'config.message': [expect.stringContaining('does not come before this step (step 5)')] });
    expect(await refused(flow.uuid, echo('{{step6.echoed}}', { insert_after_step_uuid: t1.uuid }))).toEqual({ 'config.message': [expect.stringContaining('does not come before')] });
    expect(await refused(flow.uuid, echo('{{step4.echoed}}', inBranch('false')))).toEqual({ 'config.message': [expect.stringContaining('step 4 is in another branch than this step')] });
    expect(await refused(flow.uuid, echo('x', { config: { message: 'ok', count: '{{ $env.SECRET }}' } }))).toEqual({ 'config.count': [expect.stringContaining('is not a step reference')] });
  });

  it('reports each bad member at once', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const errors = await refused(flow.uuid, { app_uid: 'kit', action_key: 'echo', config: { message: '{{step2.x}}', count: '{{step7.y}}' } });
    expect(Object.keys(errors).sort()).toEqual(['config.count', 'config.message']);
  });
});

describe('status: draft until the config validates', () => {
  it('says what the config lacks, and becomes ready when a PATCH fixes it; a reference in a typed member is accepted', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const step = await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'echo', config: { colour: 'red' } });
    expect(step).toMatchObject({ status: 'draft', status_message: 'config.message is required; config.colour is not a known member' });
    const fixed = (await kit.api.patch(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).send({ config: { message: 'hi', count: '{{step1.order.id}}' } }).expect(200)).body.data;
    expect(fixed).toMatchObject({ status: 'ready', status_message: null });
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select status, status_message, config from flow_steps where uuid = ?', [step.uuid]);
    expect(row).toEqual({ status: 'ready', status_message: null, config: { message: 'hi', count: `{{#${(await readFlow(kit.api, flow.uuid)).steps[0].uuid}.order.id}}` } });
  });
});

describe('hook triggers', () => {
  it('get a secret URL on this tenant’s host in config, read-only on create and on PATCH', async () => {
    const flow = (await kit.api.post('/api/v1/flow').send({ name: 'hooked' }).expect(201)).body.data;
    const step = await addStep(kit.api, flow.uuid, { app_uid: 'kit', trigger_key: 'hooked', config: { hook_url: 'https://evil.test/steal', note: 'n' } });
    expect(step.config).toEqual({ note: 'n', hook_url: expect.stringMatching(/^http:\/\/acme\.localhost\/api\/v1\/hooks\/[A-Za-z0-9_-]{43}$/) });
    expect(step.status).toBe('ready');
    const token = step.config.hook_url.split('/').pop();
    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select hook_token from flow_steps where uuid = ?', [step.uuid]);
    expect(row.hook_token).toBe(token);

    // The URL is as the client addressed the server when the step was made; a PATCH through another address keeps it.
    const alias = kit.client({ host: 'acme.localhost:8443', token: kit.token });
    const patched = (await alias.patch(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).send({ config: { hook_url: 'https://evil.test/x', note: 'changed' } }).expect(200)).body.data;
    expect(patched.config).toEqual({ note: 'changed', hook_url: step.config.hook_url });
    const viaAlias = await addStep(alias, (await createFlow(alias, 'via alias')).uuid, { app_uid: 'kit', trigger_key: 'hooked' });
    expect(viaAlias.config.hook_url).toMatch(/^http:\/\/acme\.localhost:8443\/api\/v1\/hooks\//);

    const second = await addStep(kit.api, (await flowWithTrigger(kit.api)).flow.uuid, echo('x'));
    expect(second.config).toEqual({ message: 'x' });
    const another = await addStep(kit.api, (await kit.api.post('/api/v1/flow').send({ name: 'h2' }).expect(201)).body.data.uuid, { app_uid: 'kit', trigger_key: 'hooked' });
    expect(another.config.hook_url).not.toBe(step.config.hook_url);
  });
});
