import { DataEnvelope, Type, defineRoute, type HttpService, type TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { applyAgentWrite } from '../agent-write';
import { AgentGuideline, AgentNote, AgentTrainingRow } from '../entities';
import { orderedTextFields, trainingFields } from '../list-items';
import { OrderedTextPatch, OrderedTextWrite } from '../schemas/guideline';
import { TrainingRowPatch, TrainingRowWrite } from '../schemas/training-row';
import { AgentParams } from './agent-routes';
import { highest, registerChildList } from './child-routes';

/** Guidelines, notes and training rows: lists of text, added one at a time or replaced whole. */
export function registerTextListRoutes(http: HttpService, service: AgentService, agent: TSchema): void {
  registerChildList(http, service, agent, {
    segment: 'guidelines',
    param: 'guidelineUuid',
    kind: 'agents.guideline',
    member: 'guidelines',
    noun: 'guideline',
    entity: AgentGuideline,
    create: {
      body: OrderedTextWrite('guideline'),
      description: 'Appends one guideline; without `order` it goes last.',
      fields: async (context, body) => orderedTextFields(body, await highest(context, 'agent_guidelines', 'order')),
    },
    update: { body: OrderedTextPatch('guideline'), apply: (_, row, body) => void Object.assign(row, definedOnly(body, ['content', 'order'])) },
    remove: {},
  });

  registerChildList(http, service, agent, {
    segment: 'notes',
    param: 'noteUuid',
    kind: 'agents.note',
    member: 'notes',
    noun: 'note',
    entity: AgentNote,
    create: {
      body: OrderedTextWrite('note'),
      description: 'Adds one note; existing notes are unchanged. Without `order` it goes last.',
      fields: async (context, body) => orderedTextFields(body, await highest(context, 'agent_notes', 'order')),
    },
    update: { body: OrderedTextPatch('note'), apply: (_, row, body) => void Object.assign(row, definedOnly(body, ['content', 'order'])) },
    remove: {},
  });

  registerChildList(http, service, agent, {
    segment: 'training',
    param: 'trainingUuid',
    kind: 'agents.training-row',
    member: 'training',
    noun: 'training row',
    entity: AgentTrainingRow,
    create: { body: TrainingRowWrite, description: 'Appends one training row.', fields: (_, body) => trainingFields(body) },
    update: { body: TrainingRowPatch, apply: (_, row, body) => void Object.assign(row, definedOnly(body, ['content', 'intent', 'response'])) },
    remove: {},
  });

  // PUT replaces a whole list: the same code path as PUT /agents/{uuid} with only that member.
  const replaceAll = (member: 'guidelines' | 'training', item: TSchema, example: unknown) =>
    http.route(
      defineRoute({
        method: 'PUT',
        path: `/api/v1/agents/:uuid/${member}`,
        summary: `Replace all ${member === 'training' ? 'training rows' : member}`,
        description: `The agent's ${member} become exactly the items sent (an empty array removes them all); items omit \`uuid\`.`,
        tags: ['agents'],
        params: AgentParams,
        body: Type.Object({ [member]: Type.Array(item, { maxItems: member === 'training' ? 5000 : 1000 }) }, { additionalProperties: false, examples: [{ [member]: [example] }] }),
        errors: [404],
        response: DataEnvelope(agent),
        handler: async ({ params, body, em, tenant }) => {
          const found = await service.lockForWrite(em, params.uuid);
          const changed = await applyAgentWrite(em, tenant.uuid, found, body, false);
          return service.saved(em, found, changed);
        },
      }),
    );
  replaceAll('guidelines', OrderedTextWrite('guideline'), { content: 'Be brief.', order: 1 });
  replaceAll('training', TrainingRowWrite, { content: 'How much is it?', intent: 'pricing', response: 'From 10 EUR a month.' });
}

/** The members of a partial body that were sent. */
export function definedOnly(body: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(members.filter((member) => body[member] !== undefined).map((member) => [member, body[member]]));
}
