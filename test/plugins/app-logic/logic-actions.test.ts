import { logicApp } from '../../../plugins/app-logic';
import { inputProblems, runAction } from '../../../plugins/flows/testing-kit';

const action = (key: string) => logicApp.actions!.find((candidate) => candidate.key === key)!;

/** Runs an action as the engine does (the kit), keeping the branch and the pause it asks for; logic actions touch nothing else. */
async function run(key: string, input: unknown) {
  const { output, branch, resumeAt } = await runAction(logicApp, key, input);
  return { output, ...(branch !== null ? { branch } : {}), ...(resumeAt !== null ? { until: resumeAt } : {}) };
}

const problems = (key: string, config: unknown) => inputProblems(action(key), config);

describe('logic actions', () => {
  it('if_condition joins with and by default, chooses the branch, and reports each condition', async () => {
    const conditions = [
      { left: 120, operator: 'greater_than', right: '100' },
      { left: 'gold', operator: 'equals', right: 'silver' },
    ];
    expect(await run('if_condition', { conditions })).toEqual({
      output: { result: false, branch: 'false', conditions: [{ operator: 'greater_than', result: true }, { operator: 'equals', result: false }] },
      branch: 'false',
    });
    expect(await run('if_condition', { conditions, joiner: 'or' })).toMatchObject({ output: { result: true, branch: 'true' }, branch: 'true' });
  });

  it('if_condition needs at least one condition, a known operator, and `right` for binary operators only', () => {
    expect(problems('if_condition', { conditions: [] })).toEqual({ 'config.conditions': ['must NOT have fewer than 1 items'] });
    expect(problems('if_condition', { conditions: [{ left: 1, operator: 'equals' }], joiner: 'xor' })).toMatchObject({
      'config.conditions.0.right': ['is required'],
      'config.joiner': expect.any(Array),
    });
    expect(problems('if_condition', { conditions: [{ left: 1, operator: 'matches_regex', right: '.*' }] })).toHaveProperty(['config.conditions.0.operator']);
    expect(problems('if_condition', { conditions: [{ left: null, operator: 'is_empty' }] })).toEqual({});
  });

  it('delay pauses the execution until now + amount × unit and outputs that time', async () => {
    const before = Date.now();
    const { output, until } = await run('delay', { amount: 2, unit: 'hours' });
    expect(until!.getTime() - before).toBeGreaterThanOrEqual(2 * 3_600_000);
    expect(until!.getTime() - Date.now()).toBeLessThanOrEqual(2 * 3_600_000);
    expect(output).toEqual({ until: until!.toISOString() });
  });

  it('delay takes a whole amount of 1 to 1000 seconds, minutes, hours or days', () => {
    expect(problems('delay', { amount: 0, unit: 'minutes' })).toHaveProperty(['config.amount']);
    expect(problems('delay', { amount: 1.5, unit: 'minutes' })).toHaveProperty(['config.amount']);
    expect(problems('delay', { amount: 1, unit: 'weeks' })).toHaveProperty(['config.unit']);
    expect(problems('delay', { amount: 1000, unit: 'days' })).toEqual({});
  });

  it('set_variables outputs the variables themselves, so later steps read {{stepN.name}}', async () => {
    const variables = { total: 42, customer: { name: 'Ada' }, tags: ['vip'] };
    expect((await run('set_variables', { variables })).output).toEqual(variables);
  });

  it('set_variables names must be identifiers, and there must be at least one', () => {
    expect(problems('set_variables', { variables: {} })).toHaveProperty(['config.variables']);
    expect(problems('set_variables', { variables: { 'not valid': 1, '2nd': 2, ok_name: 3 } })).toEqual({
      'config.variables.not valid': ['is not a known member'],
      'config.variables.2nd': ['is not a known member'],
    });
  });
});
