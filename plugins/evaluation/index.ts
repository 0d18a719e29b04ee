import { configRef, coreServices, definePlugin } from '../../core';
import { agentDirectoryRef, agentSettingsSlots, agentWebhookEvents } from '../agents';
import { conversationReaderRef, sessionizationProvider } from '../conversations';
import * as entities from './entities';
import { evaluationConfig } from './evaluation-config';
import { registerEvaluator } from './evaluator';
import { Migration0001Evaluation } from './migrations/0001-evaluation';
import { evaluateOverrides, evaluationSlot, sessionizationFromSettings } from './settings';
import { sessionEvaluatedWebhookEvent } from './topics';

// The public API of the evaluation plugin: what other plugins may import.
export { EVALUATION_TOPICS, type SessionEvaluatedEvent } from './topics';
export { ANALYZERS, EVALUATION_MODES, type AnalyzerName, type EvaluationMode } from './settings/evaluate-values';

/**
 * Evaluation: every closed session is judged by the analyzers its agent's evaluate
 * settings enable (one model call each, or one batched call), and the verdicts are
 * stored as evaluation records, listed and aggregated. The settings also decide how
 * the conversations plugin cuts sessions.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-evaluation', class: Migration0001Evaluation }],
  config: evaluationConfig,
  contributes: [agentSettingsSlots.add(evaluationSlot), sessionizationProvider.add(sessionizationFromSettings), agentWebhookEvents.add(sessionEvaluatedWebhookEvent)],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    llm: coreServices.llm,
    logger: coreServices.logger,
    config: configRef(evaluationConfig),
    agents: agentDirectoryRef,
    conversations: conversationReaderRef,
  },
  init({ http, bus, llm, logger, config, agents, conversations }) {
    for (const route of evaluateOverrides.routes(agents)) http.route(route);
    registerEvaluator({ http, bus, llm, logger, agents, conversations, settings: config.all() });
    // An agent's override goes with the agent; its evaluations stay (history).
    evaluateOverrides.forgetDeletedAgents(bus);
  },
});
