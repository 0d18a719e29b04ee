import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusMessage, BusService, LlmService, Logger } from '../../../core';
import type { Channel, ConversationReader } from '../../conversations';
import type { EvaluationSettings } from '../evaluation-config';
import { effectiveSettings } from '../settings/evaluate-store';
import { EVALUATION_TOPICS, type SessionEvaluatedEvent } from '../topics';
import { OutcomeRecorder, isWorthRetrying } from './evaluation-outcome';
import { planFor } from './evaluation-plan';
import { saveEvaluation, statusOf } from './evaluation-store';
import { runBatched } from './run-batched';
import { runPerAnalyzer } from './run-per-analyzer';
import { transcriptOf } from './transcript';

/** What `session.closed` and a rerun carry that the evaluator reads: the session. */
export interface EvaluateRequest {
  session_uuid: string;
}

export interface SessionEvaluatorDeps {
  bus: BusService;
  llm: LlmService;
  logger: Logger;
  conversations: ConversationReader;
  settings: EvaluationSettings;
}

/** What the evaluation of one session came to, before anything is stored. */
export interface SessionOutcome {
  session: NonNullable<Awaited<ReturnType<ConversationReader['sessionWithMessages']>>> & { channel: Channel };
  plan: NonNullable<ReturnType<typeof planFor>>;
  outcome: OutcomeRecorder['outcome'];
}

/**
 * The consumer, in its two phases. `prepare` (before the message's transaction opens,
 * so no database connection waits on the model, which may take many seconds) evaluates
 * one closed session with the settings in effect now; `handle` (in the message's
 * transaction) stores (or replaces) its record and publishes `session.evaluated`.
 * Nothing is evaluated for a session that is gone, still open, shorter than
 * `minMessages`, or whose settings are not active.
 *
 * When the model was unavailable, the message is thrown back to the bus for a later
 * delivery (with backoff), except on the last one: then the record is stored with the
 * answers that came and each failure's error, so a session is never silently lost.
 * Failures that another delivery would repeat are stored at once.
 */
export function createSessionEvaluator({ bus, llm, logger, conversations, settings }: SessionEvaluatorDeps) {
  const prepare = async (message: BusMessage<EvaluateRequest>, em: EntityManager): Promise<SessionOutcome | null> => {
    if (!message.tenant) return null;
    const session = await conversations.sessionWithMessages(message.payload.session_uuid);
    if (!session || session.status !== 'closed' || session.message_count < settings.minMessages) return null;
    const channel = session.channel as Channel;
    const effective = await effectiveSettings(em, session.agent_uuid);
    const plan = planFor(effective.values, effective.source, channel);
    if (!plan) return null;

    const recorder = new OutcomeRecorder(llm, settings.model || undefined);
    const transcript = transcriptOf(session.messages, settings.maxTranscriptChars);
    await (plan.mode === 'batched' ? runBatched : runPerAnalyzer)(recorder, plan, transcript);
    const { outcome } = recorder;

    const retryable = outcome.failures.find(isWorthRetrying);
    if (retryable !== undefined && message.attempt < settings.maxAttempts) throw retryable;
    return { session: { ...session, channel }, plan, outcome };
  };

  const handle = async (message: BusMessage<EvaluateRequest>, em: EntityManager, evaluated: SessionOutcome | null): Promise<void> => {
    const tenant = message.tenant;
    if (!tenant || !evaluated) return;
    const { session, plan, outcome } = evaluated;
    const uuid = await saveEvaluation(em, tenant.uuid, session, plan, outcome);
    const status = statusOf(outcome);
    if (status === 'failed') {
      // The operator's view of what the record tells the tenant in fewer words (LLM errors never quote prompts or answers).
      const errors = outcome.failures.map((failure) => (failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)));
      logger.warn('session evaluated with errors', { session_uuid: session.uuid, attempt: message.attempt, errors });
    }
    const event: SessionEvaluatedEvent = {
      evaluation_uuid: uuid,
      session_uuid: session.uuid,
      conversation_uuid: session.conversation_uuid,
      agent_uuid: session.agent_uuid,
      channel: session.channel,
      status,
      success: outcome.success,
      summary: outcome.summary,
      labels: Object.fromEntries(Object.entries(outcome.results).map(([name, result]) => [name, result.label])),
    };
    await bus.publish(EVALUATION_TOPICS.evaluated, event);
  };

  return { prepare, handle };
}
