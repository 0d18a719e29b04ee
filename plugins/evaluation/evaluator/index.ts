import type { BusService, HttpService, LlmService, Logger } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { CONVERSATION_TOPICS, type ConversationReader } from '../../conversations';
import type { EvaluationSettings } from '../evaluation-config';
import { RERUN_TOPIC } from '../topics';
import { registerAnalyticsRoute } from './analytics-route';
import { createSessionEvaluator, type EvaluateRequest, type SessionOutcome } from './evaluate-session';
import { evaluationRoutes } from './evaluation-routes';

export interface EvaluatorRuntime {
  http: HttpService;
  bus: BusService;
  llm: LlmService;
  logger: Logger;
  agents: AgentDirectory;
  conversations: ConversationReader;
  settings: EvaluationSettings;
}

/** Backoff between deliveries while the model is unavailable: doubling, at most 10 minutes. */
const MAX_RETRY_DELAY_MS = 600_000;

/**
 * The evaluator (consumes `session.closed` and reruns, runs the analyzers, stores the
 * record, publishes `session.evaluated`) and the result routes: one session's
 * evaluation, the list, the analytics, the rerun.
 */
export function registerEvaluator(runtime: EvaluatorRuntime): void {
  const { http, bus, settings } = runtime;
  const evaluator = createSessionEvaluator(runtime);
  bus.consume<EvaluateRequest, SessionOutcome | null>(
    {
      name: 'evaluate-sessions',
      topics: [CONVERSATION_TOPICS.sessionClosed, RERUN_TOPIC],
      concurrency: Math.max(1, settings.concurrency),
      retry: { attempts: Math.max(1, settings.maxAttempts), backoff: { initialMs: settings.retryInitialMs, factor: 2, maxMs: MAX_RETRY_DELAY_MS } },
      // The model is asked before the message's transaction opens; only the record is written in it.
      prepare: (message, { em }) => evaluator.prepare(message, em),
    },
    (message, { em, prepared }) => evaluator.handle(message, em, prepared),
  );
  for (const route of evaluationRoutes({ bus, conversations: runtime.conversations })) http.route(route);
  registerAnalyticsRoute(http);
}
