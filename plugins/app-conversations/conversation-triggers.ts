import { Type, type BusMessage } from '../../core';
import { CHANNELS, CONVERSATION_TOPICS, type Channel, type ConversationEvent } from '../conversations';
import { EVALUATION_TOPICS, type SessionEvaluatedEvent } from '../evaluation';
import { defineTrigger } from '../flows';

const channels = Type.Optional(
  Type.Array(Type.Union(CHANNELS.map((channel) => Type.Literal(channel))), {
    minItems: 1,
    uniqueItems: true,
    description: 'Only conversations on these channels; every channel when absent',
  }),
);

/** The step's agent's (any agent's without one), on the channels asked for (any without them). */
const concerns = (config: { channels?: Channel[] }, agentUuid: string | null, event: { agent_uuid: string; channel: Channel }) =>
  (!agentUuid || agentUuid === event.agent_uuid) && (!config.channels || config.channels.includes(event.channel));

export const conversationClosed = defineTrigger({
  key: 'conversation_closed',
  name: 'Conversation closed',
  description:
    'Starts the flow when a conversation closes (a call ended, a chat was closed): the step’s agent’s when it has an `agent_uuid`, any agent’s otherwise. ' +
    'The output is the conversation as `GET /api/v1/conversations/{uuid}` returns it.',
  input: Type.Object({ channels }, { additionalProperties: false }),
  outputSample: {
    uuid: '0190d5c2-0000-7000-8000-0000000000c1',
    agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa',
    contact_uuid: null,
    channel: 'chat',
    channel_label: 'Web chat',
    status: 'closed',
    started_at: '2025-01-01T09:00:00.000Z',
    ended_at: '2025-01-01T09:12:00.000Z',
  } satisfies ConversationEvent,
  event: {
    topic: CONVERSATION_TOPICS.closed,
    formerly: ['app-conversations.fire-conversation-closed'],
    matches: (config, message: BusMessage<ConversationEvent>, { agentUuid }) => concerns(config, agentUuid, message.payload),
  },
});

export const sessionEvaluated = defineTrigger({
  key: 'session_evaluated',
  name: 'Session evaluated',
  description:
    'Starts the flow when a closed session’s evaluation is stored (also after a rerun): the step’s agent’s when it has an `agent_uuid`, any agent’s otherwise. ' +
    'The output is `{evaluation_uuid, session_uuid, conversation_uuid, agent_uuid, channel, status, success, summary, labels}`, `labels` by analyzer; ' +
    'read the whole record from `GET /api/v1/sessions/{uuid}/evaluation`.',
  input: Type.Object(
    {
      channels,
      success: Type.Optional(Type.Boolean({ description: 'Only evaluations whose success verdict is this (a verdict of null never matches)' })),
    },
    { additionalProperties: false },
  ),
  outputSample: {
    evaluation_uuid: '0190d5c2-0000-7000-8000-0000000000e1',
    session_uuid: '0190d5c2-0000-7000-8000-0000000000d1',
    conversation_uuid: '0190d5c2-0000-7000-8000-0000000000c1',
    agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa',
    channel: 'chat',
    status: 'completed',
    success: true,
    summary: 'The customer booked a visit for Tuesday.',
    labels: { sentiment_analyzer: 'positive' },
  } satisfies SessionEvaluatedEvent,
  event: {
    topic: EVALUATION_TOPICS.evaluated,
    formerly: ['app-conversations.fire-session-evaluated'],
    matches: (config, message: BusMessage<SessionEvaluatedEvent>, { agentUuid }) =>
      concerns(config, agentUuid, message.payload) && (config.success === undefined || message.payload.success === config.success),
  },
});
