import type { AnyRoute, TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentProcedure } from '../entities';
import { definedOnly, procedureFields, sortedSteps } from '../list-items';
import { ProcedurePatch, ProcedureWrite } from '../schemas/procedure';
import { checkStepIntents, stepReferences } from '../validation/agent-rules';
import { childListRoutes } from './child-routes';

export function procedureRoutes(service: AgentService, agent: TSchema): AnyRoute[] {
  return childListRoutes(service, agent, {
    segment: 'procedures',
    param: 'procedureUuid',
    kind: 'agents.procedure',
    member: 'procedures',
    noun: 'procedure',
    entity: AgentProcedure,
    create: {
      body: ProcedureWrite,
      description: "Adds one procedure. Each step's `intent_uuid` must be an intent of this agent.",
      fields: async (context, body) => {
        await checkStepIntents(context.em, context.agent.uuid, stepReferences(body.steps, ''), context.errors);
        return procedureFields(body);
      },
    },
    update: {
      body: ProcedurePatch,
      description: "All members are optional; `steps`, when present, replaces this procedure's steps.",
      apply: async (context, row, body) => {
        await checkStepIntents(context.em, context.agent.uuid, stepReferences(body.steps, ''), context.errors);
        Object.assign(row, definedOnly(body, ['name', 'description']));
        if (body.steps !== undefined) row.steps = sortedSteps(body.steps);
      },
    },
    remove: {},
  });
}
