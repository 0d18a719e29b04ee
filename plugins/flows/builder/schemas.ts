import { Component, ReadOnly, ResourceId, Timestamp, Type, Uuid, type Static, type TSchema } from '../../../core';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Config = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** A step's trigger or action, with the version it was built with (DefinitionVersion). */
const StepDefinition = (what: 'trigger' | 'action') =>
  Type.Object({
    key: Type.String(),
    name: Type.String(),
    version: Type.Integer({
      minimum: 1,
      description: `The version of the ${what} the step was created or last upgraded with: its config is checked against that version’s input schema, and a deployed flow runs that version`,
    }),
    latest_version: Nullable(
      Type.Integer({
        minimum: 1,
        description: `The app’s newest version of the ${what}; when it is above \`version\`, \`POST .../steps/{step}/upgrade\` upgrades the step. Null when the app no longer has the ${what}`,
      }),
    ),
  });

const STEP_STATUS = '`ready` once `config` validates against the trigger’s or action’s input schema and nothing it names (a step it refers to, its agent) is gone; `draft` otherwise, with `status_message` saying why.';

/** The spec's step, plus `status_message` and `continue_on_error`. */
export const FlowStepSchema = Component(
  'FlowStep',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      position: ReadOnly(Type.Integer({ minimum: 1, description: 'The step’s number in the flat list (1 is the trigger); derived by the server from the step’s place, so inserts and deletes renumber the others' })),
      kind: ReadOnly(Type.Union([Type.Literal('trigger'), Type.Literal('action')])),
      status: ReadOnly(Type.Union([Type.Literal('draft'), Type.Literal('ready')], { description: STEP_STATUS })),
      status_message: ReadOnly(Nullable(Type.String({ description: 'Why the step is a draft; null when it is ready' }))),
      parent_step_uuid: ReadOnly(Nullable(Uuid({ description: 'The branching step (`if_condition`) this step is a branch child of' }))),
      branch_key: ReadOnly(Nullable(Type.String({ description: 'The branch of the parent step, e.g. `true`' }))),
      app: ReadOnly(
        Type.Object({
          uid: Type.String(),
          name: Type.String(),
          icon: Type.String(),
          category: Type.Union([Type.Literal('builtin'), Type.Literal('connect')]),
          requires_connection: Type.Boolean(),
        }),
      ),
      trigger: ReadOnly(Nullable(StepDefinition('trigger'))),
      action: ReadOnly(Nullable(StepDefinition('action'))),
      agent: ReadOnly(Nullable(Type.Object({ uuid: Uuid(), name: Type.String() }, { description: 'Null when the step has no agent, or its agent was deleted' }))),
      app_connection: ReadOnly(Nullable(Type.Object({ uuid: Uuid(), label: Type.String() }, { description: 'Null when the step has no connection' }))),
      config: Config(
        'The step’s input, validated against its trigger’s or action’s input schema (`GET /api/v1/flow/apps/{uid}/actions`). Any string may hold references ' +
          '`{{stepN.path}}` to an earlier step’s output (`{{step1.body.items[0].id}}`), which follow that step when others are inserted or deleted. ' +
          'A reference to a deleted step reads `{{deleted_step.path}}` and keeps the step a draft until it is changed.',
      ),
      continue_on_error: Type.Boolean({ description: 'When the step fails, record the failure and go on with the next step instead of failing the execution' }),
      last_test: ReadOnly(
        Nullable(
          Type.Object(
            {
              data: Type.Unknown({ description: 'The output of the last test: what later steps’ references see while testing' }),
              error: Nullable(Type.String()),
              tested_at: Timestamp(),
            },
            { description: 'Set by `POST .../steps/{step}/test`' },
          ),
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const FlowSchema = Component(
  'Flow',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      description: Type.String({ maxLength: 2000 }),
      status: ReadOnly(Type.Union([Type.Literal('draft'), Type.Literal('live')], { description: '`live` between deploy and undeploy; steps can only be changed in `draft`' })),
      live_version: ReadOnly(
        Nullable(
          Type.Object(
            { uuid: Uuid(), number: Type.Integer({ minimum: 1 }), deployed_at: Timestamp() },
            { description: 'The deployed version new executions run (executions name the version they ran); null while `draft`' },
          ),
        ),
      ),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
      steps: ReadOnly(Type.Array(FlowStepSchema, { description: 'Every step in flow order: the trigger first, a branching step’s children right after it (`true` branch before `false`)' })),
    },
    { additionalProperties: false },
  ),
);

export const FlowCreateBody = Type.Object(
  { ...FlowSchema.properties, description: Type.Optional(FlowSchema.properties.description) },
  { additionalProperties: false, examples: [{ name: 'New lead follow-up', description: 'Posts every new lead to the CRM' }] },
);

export const FlowPatchBody = Type.Object(
  { ...FlowSchema.properties, name: Type.Optional(FlowSchema.properties.name), description: Type.Optional(FlowSchema.properties.description) },
  { additionalProperties: false },
);

/** What a client may send back as it read it: ignored on writes. */
const { config: _config, continue_on_error: _continueOnError, ...readOnlyStepMembers } = FlowStepSchema.properties;
const AgentUuid = Nullable(Uuid({ description: 'Required for actions of apps that act on an agent (rule 6); must be an agent of this tenant' }));
const ConnectionUuid = Nullable(Uuid({ description: 'Required for `connect` apps, an app connection of this tenant and app (rule 4); must be null for `builtin` apps (rule 5)' }));

export const StepCreateBody = Type.Object(
  {
    ...readOnlyStepMembers,
    app_uid: Type.String({ minLength: 1, description: 'The app (`GET /api/v1/flow/apps`)' }),
    trigger_key: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Makes the step the flow’s trigger; give this or `action_key`' }))),
    action_key: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Makes the step an action; give this or `trigger_key`' }))),
    app_connection_uuid: Type.Optional(ConnectionUuid),
    agent_uuid: Type.Optional(AgentUuid),
    config: Type.Optional(FlowStepSchema.properties.config),
    continue_on_error: Type.Optional(FlowStepSchema.properties.continue_on_error),
    insert_after_step_uuid: Type.Optional(
      Nullable(Uuid({ description: 'Insert right after this step, in its chain (or, with `parent_step_uuid`, after the parent itself = first in the branch). Absent: append.' })),
    ),
    parent_step_uuid: Type.Optional(Nullable(Uuid({ description: 'Make the step a branch child of this branching step (rule 7)' }))),
    branch_key: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'One of the parent step’s branches, e.g. `true`; required with `parent_step_uuid`' }))),
  },
  { additionalProperties: false, examples: [{ app_uid: 'http', action_key: 'request', config: { method: 'POST', url: 'https://example.com/leads', body: { email: '{{step1.body.email}}' } } }] },
);

export const StepPatchBody = Type.Object(
  {
    ...readOnlyStepMembers,
    config: Type.Optional(FlowStepSchema.properties.config),
    continue_on_error: Type.Optional(FlowStepSchema.properties.continue_on_error),
    app_connection_uuid: Type.Optional(ConnectionUuid),
    agent_uuid: Type.Optional(AgentUuid),
  },
  { additionalProperties: false, examples: [{ continue_on_error: true }] },
);

export type StepCreate = Static<typeof StepCreateBody>;
export type StepPatch = Static<typeof StepPatchBody>;

export const FlowParams = Type.Object({ uuid: ResourceId('flows.flow', 'The flow') });
export const StepParams = Type.Object({ uuid: ResourceId('flows.flow', 'The flow'), step: ResourceId('flows.step', 'The step') });
