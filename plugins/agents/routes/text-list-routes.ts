import { DataEnvelope, Type, defineRoute, type HttpService, type TSchema } from '../../../core';
import type { AgentService } from '../agent-service';
import { AgentGuideline, AgentNote, AgentTrainingRow } from '../entities';
import { definedOnly, orderedTextFields, trainingFields } from '../list-items';
import { OrderedTextPatch, OrderedTextWrite } from '../schemas/guideline';
import { TrainingRowPatch, TrainingRowWrite } from '../schemas/training-row';
import { AgentParams } from './agent-routes';
import { highest, registerChildList } from './child-routes';

/** Guidelines, notes and training rows: lists of text, added one at a time or replaced whole. */
export function registerTextListRoutes(http: HttpService, service: AgentService, agent: TSchema): void {
  // Guidelines and notes are the same shape: ordered lines of text.
  for (const [segment, noun, table] of [
    ['guidelines', 'guideline', 'agent_guidelines'],
    ['notes', 'note', 'agent_notes'],
  ] as const) {
    registerChildList<AgentGuideline | AgentNote>(http, service, agent, {
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
  }

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
        handler: ({ params, body, em, tenant }) => service.update(em, tenant.uuid, params.uuid, body),
      }),
    );
  replaceAll('guidelines', OrderedTextWrite('guideline'), { content: 'Be brief.', order: 1 });
  replaceAll('training', TrainingRowWrite, { content: 'How much is it?', intent: 'pricing', response: 'From 10 EUR a month.' });
}
