import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { OPERATORS } from '../../../plugins/app-logic/conditions';
import { logicApp } from '../../../plugins/app-logic';
import { inputProblems } from '../../../plugins/flows/testing-kit';

const PLUGINS = ['agents', 'flows', 'app-logic'].map((id) => path.resolve(__dirname, '../../../plugins', id));

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, role: 'serve' });
});
afterAll(() => kit?.stop());

const options = (body: Record<string, unknown>) => kit.api.post('/api/v1/flow/apps/logic/options').send(body);
const values = async (kind: string) => ((await options({ kind, params: {} }).expect(200)).body.data as Array<{ label: string; value: string }>).map((option) => option.value);

describe('logic option lists, through POST /api/v1/flow/apps/logic/options', () => {
  it('operators lists every operator if_condition accepts, with a label, and nothing else', async () => {
    const res = await options({ kind: 'operators', connection_uuid: null, params: {} }).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: OPERATORS.map(({ label, value }) => ({ label, value })),
      next_cursor: null,
    });
    const ifCondition = logicApp.actions!.find((action) => action.key === 'if_condition')!;
    for (const value of await values('operators')) {
      expect(inputProblems(ifCondition, { conditions: [{ left: 1, operator: value, right: 1 }] })).toEqual({});
    }
  });

  it('joiners lists and and or', async () => {
    expect((await options({ kind: 'joiners' }).expect(200)).body.data).toEqual([
      { label: 'all conditions hold (and)', value: 'and' },
      { label: 'any condition holds (or)', value: 'or' },
    ]);
  });

  it('delay_units lists the units delay accepts', async () => {
    expect(await values('delay_units')).toEqual(['seconds', 'minutes', 'hours', 'days']);
    const delay = logicApp.actions!.find((action) => action.key === 'delay')!;
    for (const unit of await values('delay_units')) expect(inputProblems(delay, { amount: 1, unit })).toEqual({});
  });

  it('filters a list by the user’s search, on the label', async () => {
    expect((await options({ kind: 'operators', search: 'EMPTY' }).expect(200)).body.data.map((o: { value: string }) => o.value)).toEqual(['is_empty', 'is_not_empty']);
  });

  it('answers 422 for a connection on this builtin app, params it does not take, and an unknown kind', async () => {
    const connection = await options({ kind: 'operators', connection_uuid: '0190d5c2-0000-7000-8000-000000000001' }).expect(422);
    expect(connection.body.errors).toEqual({ connection_uuid: [expect.stringContaining('must be null')] });
    const params = await options({ kind: 'joiners', params: { type: 'number' } }).expect(422);
    expect(params.body.errors).toEqual({ 'params.type': ['is not a known member'] });
    const kind = await options({ kind: 'comparators' }).expect(422);
    expect(kind.body.errors).toEqual({ kind: ['must be one of: operators, joiners, delay_units'] });
  });
});
