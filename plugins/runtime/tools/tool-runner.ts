import type { Egress, ToolCall } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { KnowledgeSearch, TableRecords } from '../../tables';
import { callIntentWebhook } from './intent-webhook';
import type { ToolCatalog } from './tool-catalog';
import type { RuntimeToolTurn } from './tool-providers';

/** One tool call of a turn, as the answer's `tool_calls` lists it. */
export interface ToolOutcome {
  call: ToolCall;
  status: 'ok' | 'error';
  durationMs: number;
  /** What goes back to the model as the tool's result. */
  result: unknown;
  /** What the call does to the conversation beyond its result. */
  effect?: { kind: 'transfer'; ruleUuid: string } | { kind: 'end'; reason: string };
  /** Set for an intent: the intent's uuid (for `intent_called`). */
  intentUuid?: string;
}

export interface ToolContext {
  agentUuid: string;
  conversationUuid: string;
  contact: unknown;
  /** What contributed tools are told of the turn. */
  turn: RuntimeToolTurn;
  catalog: ToolCatalog;
  egress: Egress;
  agents: AgentDirectory;
  knowledge: KnowledgeSearch;
  records: TableRecords;
  intentTimeoutMs: number;
  signal?: AbortSignal;
}

/** Runs the calls of one model answer at once; a failing tool is an error result, never a failed turn. */
export function runTools(calls: ToolCall[], context: ToolContext): Promise<ToolOutcome[]> {
  return Promise.all(calls.map((call) => runTool(call, context)));
}

async function runTool(call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
  const started = performance.now();
  const outcome = (status: 'ok' | 'error', result: unknown, extra: Partial<ToolOutcome> = {}): ToolOutcome => ({
    call,
    status,
    durationMs: Math.round(performance.now() - started),
    result,
    ...extra,
  });
  const intent = context.catalog.intents.get(call.name);
  try {
    if (intent) {
      const extra = { intentUuid: intent.intent_uuid };
      const target = intent.webhook.url ? await context.agents.intentWebhook(context.agentUuid, intent.intent_uuid) : null;
      if (!target) return outcome('ok', { ok: true, recommendation_actions: intent.recommendation_actions }, extra);
      const answer = await callIntentWebhook(context.egress, {
        url: target.url,
        authToken: target.authToken,
        body: { intent: intent.key, parameters: call.arguments, conversation_uuid: context.conversationUuid, agent_uuid: context.agentUuid, contact: context.contact },
        timeoutMs: context.intentTimeoutMs,
        signal: context.signal,
      });
      return outcome('ok', answer, extra);
    }
    const contributed = context.catalog.contributed.get(call.name);
    if (contributed) return outcome('ok', await contributed.run(call.arguments, context.turn));
    switch (call.name) {
      case 'search_knowledge':
        return outcome('ok', await searchKnowledge(call.arguments, context));
      case 'lookup_records':
        return outcome('ok', await lookupRecords(call.arguments, context));
      case 'transfer': {
        const ruleUuid = String(call.arguments.rule_uuid ?? '');
        if (!context.catalog.routingRules.has(ruleUuid)) return outcome('error', { error: `unknown rule_uuid; use one of ${[...context.catalog.routingRules.keys()].join(', ')}` });
        return outcome('ok', { ok: true }, { effect: { kind: 'transfer', ruleUuid } });
      }
      case 'end_conversation':
        return outcome('ok', { ok: true }, { effect: { kind: 'end', reason: String(call.arguments.reason ?? '') } });
      default:
        return outcome('error', { error: `no tool named ${call.name}` });
    }
  } catch (error) {
    return outcome('error', { error: (error as Error)?.message ?? String(error) }, intent ? { intentUuid: intent.intent_uuid } : {});
  }
}

async function searchKnowledge(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
  if (context.catalog.knowledgeTables.length === 0) throw new Error('the agent has no knowledge tables');
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (query === '') throw new Error('query must be a non-empty string');
  const hits = await context.knowledge.searchAgent(context.agentUuid, query.slice(0, 1000), { limit: 5, mode: 'knowledge_base' });
  return hits.map((hit) => ({ table: hit.table_name, record_uuid: hit.record_uuid, values: hit.values }));
}

async function lookupRecords(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
  const tableUuid = String(args.table_uuid ?? '');
  if (!context.catalog.lookupTables.some((table) => table.table_uuid === tableUuid)) throw new Error('table_uuid is not one of the agent’s lookup tables');
  const filters = Array.isArray(args.filters) ? args.filters : [];
  const found = await context.records.find(tableUuid, {
    filters: filters.map((filter) => ({ column: String(filter?.column ?? ''), operator: String(filter?.operator ?? ''), value: filter?.value })),
    limit: 20,
  });
  return { total: found.total, records: found.items.map((record) => record.values) };
}
