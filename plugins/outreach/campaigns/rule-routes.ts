import { ConflictError, DataEnvelope, ValidationError, defineRoute, listRoute, pageWindow, readRoute, type AnyRoute } from '../../../core';
import { OutreachRule } from '../entities';
import { RULE_BLOCKING_STATUSES, type CampaignStatus } from '../entities/campaign.entity';
import { findRule } from './find-resources';
import { checkRule } from './rule-checks';
import { RuleCreateBody, RuleDeletedEnvelope, RuleListQuery, RuleParams, RulePatchBody, RuleSchema } from './rule-schemas';
import { ruleJson } from './rule-view';
import { run } from './sql';

const tags = ['outreach'];

const createRule = defineRoute({
  method: 'POST',
  path: '/api/v1/rules',
  summary: 'Create a rule',
  description:
    'A calling/messaging policy campaigns attach (`rule_uuids`). Defaults: Monday to Friday, `09:00`-`18:00`, `timezone` `UTC` ' +
    '(used for contacts without a time zone of their own), `max_attempts` 3, `min_gap_minutes` 60, `channel` null (any), active. ' +
    '`min_gap_minutes` holds across a contact’s tasks: a task under the rule that comes due less than the gap after the latest attempt on its contact under the rule, ' +
    'by any task (another campaign’s, one made by hand), waits until the gap has passed (`next_attempt_at`; its window is checked again then), ' +
    'as does one that comes due while such an attempt is running. ' +
    '422 when `start_time` is not before `end_time` or `timezone` is not an IANA time zone.',
  tags,
  body: RuleCreateBody,
  status: 201,
  response: DataEnvelope(RuleSchema),
  handler: async ({ body, em }) => {
    const fields = {
      name: body.name.trim(),
      weekdays: body.weekdays!,
      startTime: body.start_time!,
      endTime: body.end_time!,
      timezone: body.timezone!,
      maxAttempts: body.max_attempts!,
      minGapMinutes: body.min_gap_minutes!,
      channel: body.channel ?? null,
      isActive: body.is_active!,
    };
    const problems = checkRule(fields);
    if (Object.keys(problems).length > 0) throw new ValidationError(problems);
    const rule = em.create(OutreachRule, fields);
    await em.flush();
    return { data: ruleJson(rule) };
  },
});

const listRules = listRoute({
  path: '/api/v1/rules',
  summary: 'List rules, newest first',
  description: 'Filter with `is_active`.',
  tags,
  query: RuleListQuery,
  item: RuleSchema,
  page: async ({ query, em }) => {
    const where = query.is_active === undefined ? {} : { isActive: query.is_active };
    const [rules, total] = await em.findAndCount(OutreachRule, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [rules.map(ruleJson), total];
  },
});

const readRule = readRoute({
  path: '/api/v1/rules/:uuid',
  summary: 'Read a rule',
  tags,
  params: RuleParams,
  resource: RuleSchema,
  read: async ({ params, em }) => ruleJson(await findRule(em, params.uuid)),
});

const changeRule = defineRoute({
  method: 'PATCH',
  path: '/api/v1/rules/:uuid',
  summary: 'Change a rule',
  description:
    'Members left out keep their value; read-only members are ignored, so what was read can be sent back. ' +
    'The window is checked as it will be stored (`start_time` before `end_time`). Tasks already created keep following the rule as it is when they run.',
  tags,
  params: RuleParams,
  body: RulePatchBody,
  errors: [404],
  response: DataEnvelope(RuleSchema),
  handler: async ({ params, body, em }) => {
    const rule = await findRule(em, params.uuid, 'update');
    const next = {
      name: body.name?.trim() ?? rule.name,
      weekdays: body.weekdays ?? rule.weekdays,
      startTime: body.start_time ?? rule.startTime,
      endTime: body.end_time ?? rule.endTime,
      timezone: body.timezone ?? rule.timezone,
      maxAttempts: body.max_attempts ?? rule.maxAttempts,
      minGapMinutes: body.min_gap_minutes ?? rule.minGapMinutes,
      channel: body.channel === undefined ? rule.channel : body.channel,
      isActive: body.is_active ?? rule.isActive,
    };
    const problems = checkRule(next);
    if (Object.keys(problems).length > 0) throw new ValidationError(problems);
    em.assign(rule, next);
    await em.flush();
    return { data: ruleJson(rule) };
  },
});

const deleteRule = defineRoute({
  method: 'DELETE',
  path: '/api/v1/rules/:uuid',
  summary: 'Delete a rule',
  description:
    'Refused with 409 while any campaign it is attached to is `active`, `in_process` or `importing` (the spec’s Active, In Process, Importing; ' +
    'the message names the statuses): detach it from those campaigns (`PATCH /api/v1/campaigns/{uuid}` with `rule_uuids`) or pause or complete them first. ' +
    'Otherwise the rule is deleted and detached from every campaign. Answers `{success, message, data: []}`.',
  tags,
  params: RuleParams,
  errors: [404, 409],
  response: RuleDeletedEnvelope,
  handler: async ({ params, em, tenant }) => {
    const rule = await findRule(em, params.uuid, 'update');
    // FOR SHARE: a campaign cannot start (activate takes FOR UPDATE) between this check and the delete.
    const attached = await run<{ status: CampaignStatus }>(
      em,
      'select c.status from campaigns c join campaign_rules cr on cr.campaign_uuid = c.uuid ' +
        'where cr.tenant_uuid = ? and cr.rule_uuid = ? for share of c',
      [tenant.uuid, rule.uuid],
    );
    const blocking = RULE_BLOCKING_STATUSES.filter((status) => attached.some((campaign) => campaign.status === status));
    if (blocking.length > 0) {
      throw new ConflictError(
        `Rule is attached to a campaign with status ${blocking.join(', ')}: detach it from those campaigns, or pause or complete them, before deleting it`,
      );
    }
    // campaign_rules rows go with it (on delete cascade): the rule is detached from every campaign.
    await em.nativeDelete(OutreachRule, { uuid: rule.uuid });
    return { success: true, message: 'Rule deleted', data: [] };
  },
});

/** Rules: `/api/v1/rules`, with the spec's guarded delete. */
export const ruleRoutes: readonly AnyRoute[] = [createRule, listRules, readRule, changeRule, deleteRule];
