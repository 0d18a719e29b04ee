import type { ToolDefinition } from '../../../core';
import type { AgentView, IntentJson, RoutingRuleJson } from '../../agents';
import { FILTER_OPERATORS, type AssignedTable } from '../../tables';
import type { RuntimeTool } from './tool-providers';

/** The runtime's own tools (decisions-2.md §1): no intent or contributed tool takes these names (the agents plugin's `RESERVED_TOOL_NAMES` holds them and §7's). */
const OWN_TOOLS: readonly string[] = ['search_knowledge', 'lookup_records', 'transfer', 'end_conversation'];

type Intent = IntentJson;
type RoutingRule = RoutingRuleJson;

/** What one turn may call: the model's tool list, and what each name stands for. */
export interface ToolCatalog {
  definitions: ToolDefinition[];
  intents: Map<string, Intent>;
  routingRules: Map<string, RoutingRule>;
  knowledgeTables: AssignedTable[];
  lookupTables: AssignedTable[];
  /** Other plugins' tools offered in this turn, by name. */
  contributed: Map<string, RuntimeTool>;
}

/**
 * The tools of a turn, in a fixed order (intents by key, then the built-ins), so the
 * same agent gives the model the same request.
 */
export function toolCatalog(agent: AgentView, tables: AssignedTable[], routingRules: RoutingRule[], offered: RuntimeTool[] = []): ToolCatalog {
  const definitions: ToolDefinition[] = [];
  const intents = new Map<string, Intent>();
  const contributed = new Map<string, RuntimeTool>();
  for (const tool of offered) if (!OWN_TOOLS.includes(tool.definition.name) && !contributed.has(tool.definition.name)) contributed.set(tool.definition.name, tool);
  for (const intent of [...agent.intents].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    // Refused as keys since the runtime exists; an intent stored before keeps its row but yields the name to
    // the tool that owns it. Only when that tool is offered: an old `book_appointment` intent of an agent
    // without appointments enabled still works.
    if (OWN_TOOLS.includes(intent.key) || contributed.has(intent.key)) continue;
    intents.set(intent.key, intent);
    definitions.push({ name: intent.key, description: describeIntent(intent), parameters: intentParameters(intent) });
  }
  const knowledgeTables = tables.filter((table) => table.mode === 'knowledge_base');
  const lookupTables = tables.filter((table) => table.mode === 'lookup');
  if (knowledgeTables.length > 0) {
    definitions.push({
      name: 'search_knowledge',
      description: `Search the knowledge base (${knowledgeTables.map((table) => table.name).join(', ')}) for facts to answer the customer. Returns the best matching records.`,
      parameters: { type: 'object', properties: { query: { type: 'string', description: 'What to look for, in a few words' } }, required: ['query'], additionalProperties: false },
    });
  }
  if (lookupTables.length > 0) {
    definitions.push({
      name: 'lookup_records',
      description: `Look up exact records in a table by column values. Tables: ${lookupTables.map((table) => `${table.name} (${table.table_uuid})`).join(', ')}.`,
      parameters: {
        type: 'object',
        properties: {
          table_uuid: { type: 'string', enum: lookupTables.map((table) => table.table_uuid) },
          filters: {
            type: 'array',
            description: 'All must hold',
            items: {
              type: 'object',
              properties: { column: { type: 'string' }, operator: { type: 'string', enum: FILTER_OPERATORS.map((operator) => operator.value) }, value: {} },
              required: ['column', 'operator'],
              additionalProperties: false,
            },
          },
        },
        required: ['table_uuid', 'filters'],
        additionalProperties: false,
      },
    });
  }
  // In the order the providers gave them: a provider's order is part of the same request for the same agent.
  for (const tool of contributed.values()) definitions.push(tool.definition);
  const rules = new Map(routingRules.map((rule) => [rule.uuid, rule]));
  if (routingRules.length > 0) {
    definitions.push({
      name: 'transfer',
      description: `Transfer the conversation when the customer asks for one of these, by rule: ${routingRules.map(describeRule).join('; ')}.`,
      parameters: { type: 'object', properties: { rule_uuid: { type: 'string', enum: routingRules.map((rule) => rule.uuid) } }, required: ['rule_uuid'], additionalProperties: false },
    });
  }
  definitions.push({
    name: 'end_conversation',
    description: 'End the conversation when it is over (the customer said goodbye or has nothing more to ask). Give the closing line as your message.',
    parameters: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'], additionalProperties: false },
  });
  return { definitions, intents, routingRules: rules, knowledgeTables, lookupTables, contributed };
}

function describeIntent(intent: Intent): string {
  return [intent.name, intent.description].filter((part) => part.trim() !== '').join(': ') || intent.key;
}

/** The intent's parameters as JSON Schema: type, required, and the default where one is set. */
function intentParameters(intent: Intent): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const parameter of intent.parameters) {
    const schema: Record<string, unknown> = { type: parameter.type };
    const fallback = defaultOf(parameter.type, parameter.default);
    if (fallback !== undefined) schema.default = fallback;
    properties[parameter.key] = schema;
  }
  const required = intent.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.key);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** Defaults are stored as text; the schema states them in the parameter's type (an unreadable one is left out). */
function defaultOf(type: string, text: string): unknown {
  if (text === '') return undefined;
  if (type === 'string') return text;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : undefined;
  const number = Number(text);
  if (!Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number))) return undefined;
  return number;
}

function describeRule(rule: RoutingRule): string {
  const what = [rule.department_name, rule.trigger_keyword, rule.phrases.slice(0, 5).join(', '), rule.ai_prompt].filter((part) => part && part.trim() !== '');
  return `${rule.uuid}: ${what.join(' / ') || rule.destination_type}`;
}
