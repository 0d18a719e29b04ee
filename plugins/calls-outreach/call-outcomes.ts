import type { BusService, Logger } from '../../core';
import { CALL_TOPICS, type CallStatusEvent } from '../calls';
import type { AttemptOutcome } from '../outreach';
import type { MakeCallDeps } from './deps';
import { CALL_TASK_TOPICS, type CallTaskMetadata, type OverduePayload, type PlacePayload } from './topics';

type EndedReason = NonNullable<CallStatusEvent['ended_reason']>;

/** Ends that reached the contact (or reached them and were handed on): the task is done. */
const REACHED: readonly EndedReason[] = ['completed', 'transferred', 'hangup_by_agent', 'silence_timeout', 'max_duration'];

/** How the attempt of a call that ended this way settles. `no_answer`, `busy` and `failed` (and anything new) are tried again. */
export function outcomeOf(event: CallStatusEvent, metadata: CallTaskMetadata): AttemptOutcome {
  const reason = event.ended_reason ?? 'failed';
  const result = { call_uuid: event.call_uuid, conversation_uuid: event.conversation_uuid, ended_reason: reason, from: event.from, to: event.to };
  if (REACHED.includes(reason) || (reason === 'voicemail' && metadata.voicemail !== 'retry')) return { status: 'completed', result };
  return { status: 'failed', error: `the call ended ${reason} (call ${event.call_uuid})` };
}

/** The call's metadata, when a make_call attempt placed it. */
function taskOf(metadata: Record<string, unknown> | undefined): CallTaskMetadata | null {
  if (typeof metadata?.task_uuid !== 'string' || typeof metadata.task_attempt !== 'number') return null;
  return metadata as unknown as CallTaskMetadata;
}

type Placed = { error: string } | { call_uuid: string };

/**
 * The make_call executor's other half, on the bus:
 * - `place`: the call placed through the calls plugin in `prepare` (no transaction open,
 *   the task's row not held); a call refused before it exists (the agent lost its line
 *   meanwhile) fails the attempt at once. A provider that refuses it ends the call
 *   `failed`, which the next consumer settles like any end. As any `prepare`, it may run
 *   twice for one message delivered twice at once: a rare second call, not a lost one.
 * - `call.status` `ended` of a call carrying a task's metadata settles that attempt.
 * - `overdue`: an attempt whose call never said how it ended fails, so the task is
 *   retried rather than left `in_progress`. A settled attempt ignores it (settle is per attempt).
 */
export function runCallTaskConsumers(bus: BusService, logger: Logger, deps: MakeCallDeps): void {
  bus.consume<PlacePayload, Placed>(
    {
      name: 'place-calls',
      topics: [CALL_TASK_TOPICS.place],
      concurrency: 4,
      prepare: async (message) => {
        const { payload, tenant } = message;
        const metadata: CallTaskMetadata = {
          task_uuid: payload.task_uuid,
          task_attempt: payload.attempt,
          ...(payload.campaign_uuid ? { campaign_uuid: payload.campaign_uuid } : {}),
          voicemail: payload.voicemail,
        };
        try {
          if (!tenant) throw new Error('the message names no tenant');
          const call = await deps.placing.place(tenant, {
            agentUuid: payload.agent_uuid,
            to: payload.to,
            ...(payload.from ? { from: payload.from } : {}),
            contactUuid: payload.contact_uuid,
            metadata: metadata as unknown as Record<string, unknown>,
            callbackOrigin: deps.placing.publicBaseUrl.replace(/\/+$/, ''),
          });
          return { call_uuid: call.call_uuid };
        } catch (error) {
          return { error: `the call could not be placed: ${error instanceof Error ? error.message : String(error)}` };
        }
      },
    },
    async (message, { em, prepared }) => {
      if (!prepared || !('error' in prepared)) return;
      logger.warn('a make_call attempt could not place its call', { task_uuid: message.payload.task_uuid, attempt: message.payload.attempt, error: prepared.error });
      await deps.tasks.settle(em, message.payload.task_uuid, message.payload.attempt, { status: 'failed', error: prepared.error });
    },
  );

  bus.consume<CallStatusEvent>({ name: 'settle-call-tasks', topics: [CALL_TOPICS.status], concurrency: 4 }, async (message, { em }) => {
    const event = message.payload;
    const task = event?.status === 'ended' ? taskOf(event.metadata) : null;
    if (!task) return;
    await deps.tasks.settle(em, task.task_uuid, task.task_attempt, outcomeOf(event, task));
  });

  bus.consume<OverduePayload>({ name: 'overdue-call-tasks', topics: [CALL_TASK_TOPICS.overdue] }, async (message, { em }) => {
    const { task_uuid: taskUuid, attempt } = message.payload;
    await deps.tasks.settle(em, taskUuid, attempt, { status: 'failed', error: 'the call never told how it ended (its status callbacks were lost)' });
  });
}
