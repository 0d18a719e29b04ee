import { Component, Timestamp, Type, Uuid, type Static } from '../../core';
import { CALL_STATUSES, ENDED_REASONS, type Call } from './entities';

const literals = <T extends string>(values: readonly T[], description: string) => Type.Union(values.map((value) => Type.Literal(value)), { description });

export const CallSchema = Component(
  'Call',
  Type.Object(
    {
      call_uuid: Uuid(),
      conversation_uuid: Uuid({ description: 'The conversation on channel `voice` the call is: its messages are the call’s utterances' }),
      agent_uuid: Uuid(),
      contact_uuid: Type.Union([Uuid(), Type.Null()]),
      direction: literals(['inbound', 'outbound'], 'Who called'),
      from: Type.String({ description: 'The calling number (E.164)' }),
      to: Type.String({ description: 'The called number (E.164)' }),
      provider: Type.String({ description: 'The telephony driver that carries it (`twilio`)' }),
      status: literals(CALL_STATUSES, '`queued -> ringing -> in_progress -> ended`'),
      ended_reason: Type.Union([literals(ENDED_REASONS, 'Why it ended'), Type.Null()], { description: 'Set when `status` is `ended`' }),
      answered_by: Type.Union([literals(['human', 'machine', 'unknown'], 'Who picked up (answering machine detection)'), Type.Null()]),
      muted: Type.Boolean({ description: 'The agent is muted: it says nothing of its own until unmuted (live `say` still speaks)' }),
      error_message: Type.Union([Type.String(), Type.Null()], { description: 'The provider’s reason, for a call that could not be placed' }),
      answered_at: Type.Union([Timestamp(), Type.Null()]),
      ended_at: Type.Union([Timestamp(), Type.Null()]),
      duration_seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'As the provider counts it, once ended' }),
      has_recording: Type.Boolean({ description: 'A recording is stored: `GET /api/v1/calls/{conversation_uuid}/recording`' }),
      metadata: Type.Record(Type.String(), Type.Unknown()),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    { additionalProperties: false },
  ),
);
export type CallJson = Static<typeof CallSchema>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function callJson(call: Call): CallJson {
  return {
    call_uuid: call.uuid,
    conversation_uuid: call.conversationUuid,
    agent_uuid: call.agentUuid,
    contact_uuid: call.contactUuid,
    direction: call.direction,
    from: call.from,
    to: call.to,
    provider: call.provider,
    status: call.status,
    ended_reason: call.endedReason,
    answered_by: call.answeredBy,
    muted: call.muted,
    error_message: call.errorMessage,
    answered_at: iso(call.answeredAt),
    ended_at: iso(call.endedAt),
    duration_seconds: call.durationSeconds,
    has_recording: call.recordingPath !== null,
    metadata: call.metadata,
    created_at: call.createdAt.toISOString(),
    updated_at: call.updatedAt.toISOString(),
  };
}
