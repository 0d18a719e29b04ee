import { DataEnvelope, Type, defineRoute, type AnyRoute, type TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentGuideline, AgentNote, AgentTrainingRow } from '../entities';
import { definedOnly, orderedTextFields, trainingFields } from '../list-items';
import { OrderedTextPatch, OrderedTextWrite } from '../schemas/guideline';
import { TrainingRowPatch, TrainingRowWrite } from '../schemas/training-row';
import { AgentParams } from './agent-routes';
import { childListRoutes, highest } from './child-routes';

/** Guidelines, notes and training rows: lists of text, added one at a time or replaced whole. */
export const textListRoutes = (service: AgentService, agent: TSchema): AnyRoute[] => [
  ...orderedTextRoutes(service, agent, 'guidelines', 'guideline', 'agent_guidelines'),
  ...orderedTextRoutes(service, agent, 'notes', 'note', 'agent_notes'),
  ...childListRoutes(service, agent, {
    segment: 'training',
    param: 'trainingUuid',
    kind: 'agents.training-row',
    member: 'training',
    noun: 'training row',
    entity: AgentTrainingRow,
    create: { body: TrainingRowWrite, description: 'Appends one training row.', fields: (_, body) => trainingFields(body) },
    update: { body: TrainingRowPatch, apply: (_, row, body) => void Object.assign(row, definedOnly(body, ['content', 'intent', 'response'])) },
    remove: {},
  }),
  replaceAll(service, agent, 'guidelines', OrderedTextWrite('guideline'), { content: 'Be brief.', order: 1 }),
  replaceAll(service, agent, 'training', TrainingRowWrite, { content: 'How much is it?', intent: 'pricing', response: 'From 10 EUR a month.' }),
];

/** Guidelines and notes are the same shape: ordered lines of text. */
const orderedTextRoutes = (service: AgentService, agent: TSchema, segment: 'guidelines' | 'notes', noun: 'guideline' | 'note', table: string) =>
  childListRoutes<AgentGuideline | AgentNote>(service, agent, {
    segment,
    param: `${noun}Uuid`,
    kind: `agents.${noun}`,
    member: segment,
    noun,
    entity: segment === 'guidelines' ? AgentGuideline : AgentNote,
    create: {
      body: OrderedTextWrite(noun),
      description: `Adds one ${noun}; without \`order\` it goes last.`,
      fields: async (context, body) => orderedTextFields(body, await highest(context, table, 'order')),
    },
    update: { body: OrderedTextPatch(noun), apply: (_, row, body) => void Object.assign(row, definedOnly(body, ['content', 'order'])) },
    remove: {},
  });

/** PUT replaces a whole list: the same code path as PUT /agents/{uuid} with only that member. */
const replaceAll = (service: AgentService, agent: TSchema, member: 'guidelines' | 'training', item: TSchema, example: unknown) =>
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
    handler: ({ params, body, em, tenant }) => service.update(em, tenant.uuid, params.uuid, body),
  });
