import { Component, PageQuery, ReadOnly, ResourceId, Timestamp, Type, Uuid, type Static } from '../../../core';
import { CAMPAIGN_STATUSES } from '../entities/campaign.entity';
import { TASK_TYPES } from '../entities/task.entity';

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(values.map((value) => Type.Literal(value)), { description }) as unknown as ReturnType<typeof Type.String>;

export const CampaignStatusSchema = literals(
  CAMPAIGN_STATUSES,
  '`draft` (being set up) -> `importing` (activated: its tasks are being created) -> `active` (running: contacts added to its pools get tasks at once) ' +
    '<-> `paused` (no tasks waiting), `active` -> `in_process` (completing: no new tasks, those made run out) -> `completed` (when they have). ' +
    'Changed only by `POST /api/v1/campaigns/{uuid}/activate|pause|complete`.',
);

const TaskType = literals(TASK_TYPES, 'The type of the tasks it creates; an installed executor must run it (422 naming the missing capability otherwise)');
const RuleUuids = Type.Array(ResourceId('outreach.rule', 'A rule of this tenant'), {
  maxItems: 20,
  uniqueItems: true,
  description:
    'Its rules, in order (replaced as a whole on update). Its new tasks follow the first active one: its weekdays and hours in the contact’s time zone.',
});

export const CampaignSchema = Component(
  'Campaign',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Type.String({ minLength: 1, maxLength: 200 }),
      description: Type.String({ maxLength: 2000 }),
      agent_uuid: ResourceId('agents.agent', 'The agent of this tenant who works its tasks'),
      status: ReadOnly(CampaignStatusSchema),
      task_type: TaskType,
      task_data: Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Copied onto each task it creates, under the task’s rules: chatapp templates need `message_type: chatapp_template` and `template_uuid`; ' +
          '`webhook` tasks need `url` and may take `secret` (write-only: stored encrypted apart from the data, shown as `has_secret: true`; kept unless `secret` is sent, null removes it)',
      }),
      priority: Type.Integer({ minimum: 1, maximum: 10, description: 'Of its tasks: when several tasks of the tenant are due, the lowest number runs first' }),
      rule_uuids: RuleUuids,
      pool_count: ReadOnly(Type.Integer({ minimum: 0, description: 'How many pools it has' })),
      contact_count: ReadOnly(Type.Integer({ minimum: 0, description: 'How many contacts its pools hold (a contact in two pools counts twice)' })),
      last_error: ReadOnly(
        Type.Union([Type.String(), Type.Null()], {
          description:
            'Why its last activation failed for good: its tasks could not be created after every retry, so it went back to `draft` with none made. Cleared when it is activated again; null otherwise',
        }),
      ),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'An outreach campaign: its agent works the contacts of its pools with tasks of one type, following its rules' },
  ),
);
export type CampaignJson = Static<typeof CampaignSchema>;

export const CampaignCreateBody = Type.Object(
  {
    ...CampaignSchema.properties,
    description: Type.Optional({ ...CampaignSchema.properties.description, default: '' }),
    task_data: Type.Optional({ ...CampaignSchema.properties.task_data, default: {} }),
    priority: Type.Optional({ ...CampaignSchema.properties.priority, default: 5 }),
    rule_uuids: Type.Optional({ ...RuleUuids, default: [] }),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Spring renewals', agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa', task_type: 'follow_up', priority: 5, rule_uuids: [] }],
  },
);

/** A partial update; what was read may be sent back (read-only members, the status too, are ignored). */
export const CampaignPatchBody = Type.Object(
  {
    ...CampaignSchema.properties,
    name: Type.Optional(CampaignSchema.properties.name),
    description: Type.Optional(CampaignSchema.properties.description),
    agent_uuid: Type.Optional(CampaignSchema.properties.agent_uuid),
    task_type: Type.Optional(TaskType),
    task_data: Type.Optional(CampaignSchema.properties.task_data),
    priority: Type.Optional(CampaignSchema.properties.priority),
    rule_uuids: Type.Optional(RuleUuids),
  },
  { additionalProperties: false, examples: [{ name: 'Spring renewals (2nd wave)', priority: 7 }] },
);

export const CampaignListQuery = PageQuery({
  status: Type.Optional(CampaignStatusSchema),
  agent_uuid: Type.Optional(Uuid({ description: 'Only this agent’s campaigns' })),
});

export const CampaignParams = Type.Object({ uuid: ResourceId('outreach.campaign', 'The campaign’s uuid') });
