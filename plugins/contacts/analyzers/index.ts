import type { BusService, HttpService, LlmService, Logger } from '../../../core';
import { CONVERSATION_TOPICS, type ConversationReader, type SessionClosedEvent } from '../../conversations';
import type { ContactsSettings } from '../contacts-config';
import { analyzerRoutes } from './analyzer-routes';
import { approvalRoutes } from './approval-routes';
import { createUpdateProposer, type ProposedUpdates } from './propose-updates';

export interface AnalyzerRuntime {
  http: HttpService;
  bus: BusService;
  llm: LlmService;
  logger: Logger;
  conversations: ConversationReader;
  settings: ContactsSettings;
}

/** Sessions one process analyzes at once. */
const PROPOSER_CONCURRENCY = 4;

/** Contact analyzers and approvals: routes, and the session.closed consumer that proposes updates. */
export function registerAnalyzers(runtime: AnalyzerRuntime): void {
  const { http, bus, settings } = runtime;
  for (const route of [...analyzerRoutes, ...approvalRoutes(settings)]) http.route(route);
  const proposer = createUpdateProposer(runtime);
  // No retry policy of its own: an unavailable model is retried with the bus's attempts and backoff.
  // Several sessions at once, since each waits on the model (in prepare, before the transaction); sessions of one
  // contact queue on its row lock.
  bus.consume<SessionClosedEvent, ProposedUpdates | null>(
    {
      name: 'propose-contact-updates',
      topics: [CONVERSATION_TOPICS.sessionClosed],
      concurrency: PROPOSER_CONCURRENCY,
      prepare: (message, { em }) => proposer.prepare(message, em),
    },
    (_message, { em, prepared }) => proposer.handle(em, prepared),
  );
}
