import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DataEnvelope,
  NotFoundError,
  PageQuery,
  Reply,
  ResourceId,
  Type,
  Uuid,
  defineRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
} from '../../../core';
import { publicOrigin } from '../../channels';
import { StoredFileNotFoundError } from '../../storage';
import { CallSchema, callJson } from '../call-view';
import { CALL_STATUSES, Call } from '../entities';
import type { CallDeps } from '../engine/deps';
import { placeCall } from '../engine/place-call';

const E164 = (description: string) => Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description });

const CallCreate = Type.Object(
  {
    agent_uuid: ResourceId('agents.agent', 'The agent who calls: active, with an active `phone` channel naming a connection, and a number that takes calls'),
    to: E164('The number called, in E.164'),
    from: Type.Optional(E164('One of the agent’s active numbers with `capabilities.call`; default the first of them')),
    contact_uuid: Type.Optional(ResourceId('contacts.contact', 'The contact called; default the contact with the `to` number, else a new one')),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Kept on the call and sent with its `call_status` webhooks' })),
  },
  { additionalProperties: false, examples: [{ agent_uuid: '0190f1a2-7c1e-7a51-9a39-0f5a3c1d2e4b', to: '+14155550123' }] },
);

const CallParams = Type.Object({ conversation_uuid: ResourceId('calls.call', 'The call’s conversation (a call is named by it)') });

const CallListQuery = PageQuery({
  agent_uuid: Type.Optional(Uuid({ description: 'Calls of this agent' })),
  status: Type.Optional(Type.Union(CALL_STATUSES.map((status) => Type.Literal(status)))),
  direction: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')])),
});

async function callOf(em: EntityManager, conversationUuid: string): Promise<Call> {
  const call = await em.findOne(Call, { conversationUuid });
  if (!call) throw new NotFoundError('Call not found');
  return call;
}

/** The call resource: placing a call, reading calls and a call's recording. */
export function callRoutes(deps: CallDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/call',
      summary: 'Start an outbound call',
      description:
        'The agent calls `to` from one of its numbers over the connection of its `phone` channel: the call is a conversation on channel `voice` (its messages are the ' +
        'call’s utterances) and goes `queued -> ringing -> in_progress -> ended`. Answered, the agent says `outbound_first_message` (unless `customer_speak_first`) ' +
        'and each thing the callee says is one turn of the agent; an answering machine gets `voice_mail_message` and `ended_reason: voicemail`. A provider that ' +
        'refuses the call answers 201 with the call `ended`, `ended_reason: failed` and the provider’s reason in `error_message`. State changes are delivered to the ' +
        'agent’s webhooks subscribed to `call_status`.',
      tags: ['calls'],
      body: CallCreate,
      status: 201,
      errors: [404, 409, 422],
      response: DataEnvelope(CallSchema),
      // The provider is called with no transaction open.
      transactional: false,
      handler: async ({ body, req, tenant }) => {
        const call = await placeCall(deps, tenant, {
          agentUuid: body.agent_uuid,
          to: body.to,
          from: body.from,
          contactUuid: body.contact_uuid,
          metadata: body.metadata,
          callbackOrigin: publicOrigin(req, deps.connections.publicBaseUrl),
        });
        return { data: call };
      },
    }),

    listRoute({
      path: '/api/v1/calls',
      summary: 'List calls, newest first',
      tags: ['calls'],
      query: CallListQuery,
      item: CallSchema,
      page: async ({ query, em }) => {
        const where: Record<string, unknown> = {};
        if (query.agent_uuid) where.agentUuid = query.agent_uuid;
        if (query.status) where.status = query.status;
        if (query.direction) where.direction = query.direction;
        const [rows, total] = await em.findAndCount(Call, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
        return [rows.map(callJson), total] as const;
      },
    }),

    readRoute({
      path: '/api/v1/calls/:conversation_uuid',
      summary: 'Read a call',
      tags: ['calls'],
      params: CallParams,
      resource: CallSchema,
      read: async ({ params, em }) => callJson(await callOf(em, params.conversation_uuid)),
    }),

    defineRoute({
      method: 'GET',
      path: '/api/v1/calls/:conversation_uuid/recording',
      summary: 'Download a call’s recording',
      description: 'The audio (WAV) of a call whose agent has `audio_recording`, once the provider has handed it over (`has_recording`) and the storage plugin keeps it; 404 before.',
      tags: ['calls'],
      params: CallParams,
      errors: [404],
      response: Type.Unknown({ description: 'audio/wav' }),
      handler: async ({ params, em }) => {
        const call = await callOf(em, params.conversation_uuid);
        if (!call.recordingPath) throw new NotFoundError('The call has no recording');
        const stored = await deps.storage.read(call.recordingPath).catch((error) => {
          if (error instanceof StoredFileNotFoundError) throw new NotFoundError('The call has no recording');
          throw error;
        });
        const chunks: Buffer[] = [];
        for await (const chunk of stored.body) chunks.push(chunk as Buffer);
        return new Reply(200, Buffer.concat(chunks), { 'content-type': stored.contentType || 'audio/wav' });
      },
    }),
  ];
}
