import { Type } from '../../core';
import { Options, defineAction, defineFlowApp, defineOptions } from '../flows';
import { BINARY_OPERATORS, JOINERS, OPERATORS, holds, type Joiner, type Operator } from './conditions';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#6b46c1" stroke-width="2"><path d="M6 3v12"/><circle cx="18" cy="6" r="3"/><circle cx="6" cy="18" r="3"/><path d="M18 9a9 9 0 0 1-9 9"/></svg>',
  ).toString('base64');

const NoParams = Type.Object({}, { additionalProperties: false });

/** A choice among fixed texts, as a JSON Schema `enum` (which clients render as a list, and whose error names the allowed values). */
const OneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description });

const Condition = Type.Object(
  {
    left: Type.Unknown({ description: 'The value to test, usually a reference such as `{{step1.body.total}}`' }),
    operator: Options(
      'operators',
      {},
      OneOf<Operator>(
        OPERATORS.map((operator) => operator.value),
        'How `left` is tested',
      ),
    ),
    right: Type.Optional(Type.Unknown({ description: 'What `left` is compared with; required by every operator but is_empty, is_not_empty, is_true and is_false' })),
  },
  {
    additionalProperties: false,
    // Binary operators need `right`: a condition missing it stays a draft rather than comparing with nothing.
    if: { properties: { operator: { enum: BINARY_OPERATORS } }, required: ['operator'] },
    then: { required: ['right'] },
  },
);

const Joiner = Options(
  'joiners',
  {},
  OneOf<Joiner>(
    JOINERS.map((joiner) => joiner.value),
    '`and` (the default): every condition must hold; `or`: one is enough',
  ),
);

const IfConditionInput = Type.Object(
  {
    conditions: Type.Array(Condition, { minItems: 1, maxItems: 50 }),
    joiner: Type.Optional(Joiner),
  },
  { additionalProperties: false },
);

const ifCondition = defineAction({
  key: 'if_condition',
  name: 'If condition',
  description:
    'Tests conditions and runs the steps of the `true` branch when they hold (all of them with `and`, one with `or`), else those of the `false` branch. ' +
    'Numbers and numeric texts compare as numbers, `true`/`false` texts as booleans, other texts case-sensitively; see the `operators` option list.',
  input: IfConditionInput,
  outputSample: { result: true, branch: 'true', conditions: [{ operator: 'greater_than', result: true }] },
  branches: ['true', 'false'],
  pure: true,
  run(context) {
    const { conditions } = context.input;
    const joiner: Joiner = context.input.joiner ?? 'and';
    const results = conditions.map((condition) => ({ operator: condition.operator, result: holds(condition) }));
    const result = joiner === 'and' ? results.every((r) => r.result) : results.some((r) => r.result);
    const branch = String(result);
    context.branch(branch);
    return { result, branch, conditions: results };
  },
});

const DELAY_UNITS = [
  { value: 'seconds', label: 'seconds', ms: 1000 },
  { value: 'minutes', label: 'minutes', ms: 60_000 },
  { value: 'hours', label: 'hours', ms: 3_600_000 },
  { value: 'days', label: 'days', ms: 86_400_000 },
] as const;

const DelayInput = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 1000, description: 'How many units to wait' }),
    unit: Options(
      'delay_units',
      {},
      OneOf<(typeof DELAY_UNITS)[number]['value']>(
        DELAY_UNITS.map((unit) => unit.value),
        'The unit of `amount`',
      ),
    ),
  },
  { additionalProperties: false },
);

const delay = defineAction({
  key: 'delay',
  name: 'Delay',
  description:
    'Waits, then goes on with the next step. The execution is parked until then (a delayed bus message resumes it), so no worker is held ' +
    'and a restart does not lose the wait. It resumes no earlier than `until`, later if the workers are busy or down.',
  input: DelayInput,
  outputSample: { until: '2025-01-01T12:05:00.000Z' },
  pure: true,
  run(context) {
    const unit = DELAY_UNITS.find((u) => u.value === context.input.unit)!;
    const until = new Date(Date.now() + context.input.amount * unit.ms);
    context.pause({ until });
    return { until: until.toISOString() };
  },
});

const SetVariablesInput = Type.Object(
  {
    variables: Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }), Type.Unknown(), {
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 100,
      description: 'Names (letters, digits and `_`, not starting with a digit) and their values; values may be references',
    }),
  },
  { additionalProperties: false },
);

const setVariables = defineAction({
  key: 'set_variables',
  name: 'Set variables',
  description: 'Names values for later steps: its output is the variables themselves, so `{{stepN.total}}` reads the variable `total`.',
  input: SetVariablesInput,
  outputSample: { total: 42, customer: 'Ada' },
  pure: true,
  run: (context) => context.input.variables,
});

const list = (items: ReadonlyArray<{ value: string; label: string }>) => () => ({ options: items.map(({ label, value }) => ({ label, value })) });

/** The `logic` app: branching, waiting and naming values, all inside Switchboard (builtin, no connection). */
export const logicApp = defineFlowApp({
  uid: 'logic',
  name: 'Logic',
  description: 'Branch on conditions, wait, and set variables',
  icon: ICON,
  category: 'builtin',
  actions: [ifCondition, delay, setVariables],
  options: [
    defineOptions({ kind: 'operators', description: 'Operators of an `if_condition` condition', params: NoParams, load: list(OPERATORS) }),
    defineOptions({ kind: 'joiners', description: 'How an `if_condition` joins its conditions', params: NoParams, load: list(JOINERS) }),
    defineOptions({ kind: 'delay_units', description: 'Units of a `delay`', params: NoParams, load: list(DELAY_UNITS) }),
  ],
});
