import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { addStep, check, echo, flowWithTrigger, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

/**
 * Structural writes lock the flow row, so inserts that race each other run one after
 * another: each sees the steps the previous one left, and positions stay 1..N.
 */

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

it('20 concurrent inserts into one flow (appends, mid-chain inserts, branch children) leave positions 1..N with no gap or duplicate', async () => {
  const { flow, trigger } = await flowWithTrigger(kit.api);
  const branch = await addStep(kit.api, flow.uuid, check());
  const bodies = Array.from({ length: 20 }, (_, n) => {
    if (n % 4 === 0) return echo(`after-trigger-${n}`, { insert_after_step_uuid: trigger.uuid });
    if (n % 4 === 1) return echo(`true-${n}`, { parent_step_uuid: branch.uuid, branch_key: 'true' });
    if (n % 4 === 2) return echo(`first-false-${n}`, { parent_step_uuid: branch.uuid, branch_key: 'false', insert_after_step_uuid: branch.uuid });
    return echo(`appended-${n}`);
  });
  const responses = await Promise.all(bodies.map((body) => kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send(body)));
  expect(responses.map((res) => res.status)).toEqual(Array(20).fill(201));

  const read = await readFlow(kit.api, flow.uuid);
  expect(read.steps.map((step: Json) => step.position)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
  const created = responses.map((res) => res.body.data.uuid).sort();
  expect(read.steps.map((step: Json) => step.uuid).filter((uuid: string) => uuid !== trigger.uuid && uuid !== branch.uuid).sort()).toEqual(created);

  // Every sibling group keeps distinct orders, as one writer at a time leaves them.
  const groups: Array<{ parent: string | null; branch: string | null; n: number; distinct: number }> = await kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(
      'select parent_step_uuid as parent, branch_key as branch, count(*)::int as n, count(distinct ord)::int as distinct from flow_steps where flow_uuid = ? group by 1, 2',
      [flow.uuid],
    );
  expect(groups.every((group) => group.n === group.distinct)).toBe(true);
  expect(groups.map((group) => group.n).sort((a, b) => a - b)).toEqual([5, 5, 12]);

  // Each kind of insert landed in its group, in the shape its placement says.
  const labels = read.steps.map((step: Json) => step.config.message ?? step.app.uid);
  expect(labels.slice(0, 7)).toEqual(['kit', ...labels.slice(1, 6).map(() => expect.stringMatching(/^after-trigger-/)), 'kit']);
  expect(labels.slice(7, 12)).toEqual(Array(5).fill(expect.stringMatching(/^true-/)));
  expect(labels.slice(12, 17)).toEqual(Array(5).fill(expect.stringMatching(/^first-false-/)));
  expect(labels.slice(17)).toEqual(Array(5).fill(expect.stringMatching(/^appended-/)));
});
