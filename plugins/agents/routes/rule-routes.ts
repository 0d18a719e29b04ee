import type { AnyRoute, TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentGuardRule, AgentRoutingRule } from '../entities';
import { camelFields, nextPosition, settleDestination, snakeView } from '../list-items';
import { GuardRule, GuardRulePatch, GuardRuleWrite } from '../schemas/guard-rule';
import { RoutingRule, RoutingRulePatch, RoutingRuleWrite } from '../schemas/routing-rule';
import { checkAgentReferences, checkGuardRule, checkRoutingRule } from '../validation/agent-rules';
import { childListRoutes, highest, type ChildContext, type ChildList } from './child-routes';

const members = (schema: { properties: object }) => Object.keys(schema.properties).filter((member) => member !== 'uuid');

/** Checks a rule's destination agent, when it has one: another agent of this tenant. */
const checkDestinationAgent = (context: ChildContext, rule: { destination_agent_uuid?: string | null }) =>
  rule.destination_agent_uuid
    ? checkAgentReferences(context.em, context.tenantUuid, context.agent.uuid, [{ path: 'destination_agent_uuid', uuid: rule.destination_agent_uuid }], context.errors)
    : Promise.resolve();

/** Routing rules (where the customer asks to go) and guard rules (when the conversation must stop or hand off). */
export const ruleRoutes = (service: AgentService, agent: TSchema): AnyRoute[] => [...childListRoutes(service, agent, routingRules), ...childListRoutes(service, agent, guardRules)];

const routingRules: ChildList<AgentRoutingRule> = {
  segment: 'routing-rules',
  param: 'ruleUuid',
  kind: 'agents.routing-rule',
  member: 'routing_rules',
  noun: 'routing rule',
  entity: AgentRoutingRule,
  create: {
    body: RoutingRuleWrite,
    description: 'Without `priority` the rule is evaluated after all others.',
    fields: async (context, body) => {
      checkRoutingRule(body, '', context.errors);
      await checkDestinationAgent(context, body);
      return settleDestination({ ...camelFields(body), priority: body.priority ?? nextPosition(await highest(context, 'agent_routing_rules', 'priority')) });
    },
  },
  update: {
    body: RoutingRulePatch,
    description: 'Partial: only the members sent change (e.g. `{"is_active": false}` keeps the rule configured but it never fires).',
    apply: async (context, row, body) => {
      const merged = { ...snakeView(row, members(RoutingRule)), ...body };
      checkRoutingRule(merged, '', context.errors);
      if (body.destination_agent_uuid !== undefined) await checkDestinationAgent(context, body);
      settleDestination(Object.assign(row, camelFields(body)));
    },
  },
  remove: {},
};

const guardRules: ChildList<AgentGuardRule> = {
  segment: 'guard-rules',
  param: 'ruleUuid',
  kind: 'agents.guard-rule',
  member: 'guard_rules',
  noun: 'guard rule',
  entity: AgentGuardRule,
  create: {
    body: GuardRuleWrite,
    description:
      '`when_condition` and `then_action` are required. `forward` needs `destination_type` and `destination` ' +
      '(or `destination_agent_uuid` when `destination_type=agent`); `end_conversation` needs `say_before_end`.',
    fields: async (context, body) => {
      checkGuardRule(body, '', context.errors);
      await checkDestinationAgent(context, body);
      return settleDestination(camelFields(body));
    },
  },
  update: {
    body: GuardRulePatch,
    description: 'Partial; the rule as changed must still meet the create rules.',
    apply: async (context, row, body) => {
      const merged = { ...snakeView(row, members(GuardRule)), ...body };
      checkGuardRule(merged, '', context.errors);
      if (body.destination_agent_uuid !== undefined) await checkDestinationAgent(context, body);
      settleDestination(Object.assign(row, camelFields(body)));
    },
  },
  remove: {},
};
