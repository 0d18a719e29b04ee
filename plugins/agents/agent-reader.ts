import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, createServiceRef, preparedStatement } from '../../core';
import { PERSONA_MEMBERS } from './schemas/agent';
import { Appointments, appointmentsDefaults } from './schemas/appointments';
import { TextSettings, textDefaults } from './schemas/text-settings';
import { VoiceSettings, voiceDefaults } from './schemas/voice-settings';
import { mergeBySchema } from './settings-merge';
import type { AgentSettingsSlot } from './agent-settings-slots';

export type AgentJson = Record<string, unknown> & { agent_uuid: string; name: string };

/** ISO 8601 UTC with milliseconds, as `Date.toISOString()` writes it. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

interface ListSpec {
  table: string;
  /** `json_build_object` arguments: the item exactly as the API returns it. */
  item: string;
  orderBy: string;
}

/** Guidelines and notes: ordered lines of text. */
const orderedText = (table: string): ListSpec => ({ table, item: `'uuid', c.uuid, 'content', c.content, 'order', c."order"`, orderBy: 'c."order", c.uuid' });

/** Each list of the agent, as its items are returned and in the order they are listed. */
const LISTS: Record<string, ListSpec> = {
  guidelines: orderedText('agent_guidelines'),
  notes: orderedText('agent_notes'),
  procedures: {
    table: 'agent_procedures',
    item: `'uuid', c.uuid, 'name', c.name, 'description', c.description, 'steps', c.steps`,
    orderBy: 'c.uuid',
  },
  training: { table: 'agent_training_rows', item: `'uuid', c.uuid, 'content', c.content, 'intent', c.intent, 'response', c.response`, orderBy: 'c.uuid' },
  intents: {
    table: 'agent_intents',
    item:
      `'intent_uuid', c.uuid, 'key', c.key, 'name', c.name, 'description', c.description, ` +
      `'recommendation_actions', c.recommendation_actions, 'confidence_threshold', c.confidence_threshold, ` +
      `'is_system', c.is_system, 'intent_llm_handle_by_response', c.intent_llm_handle_by_response, ` +
      `'webhook', json_build_object('url', c.webhook_url, 'has_auth_token', c.webhook_auth_token is not null), ` +
      `'parameters', c.parameters, 'created_at', ${iso('c.created_at')}, 'updated_at', ${iso('c.updated_at')}`,
    orderBy: 'c.uuid',
  },
  webhooks: {
    table: 'agent_webhooks',
    item:
      `'webhook_uuid', c.uuid, 'url', c.url, 'events', c.events, 'is_active', c.is_active, ` +
      `'has_secret', c.secret is not null, 'created_at', ${iso('c.created_at')}, 'updated_at', ${iso('c.updated_at')}`,
    orderBy: 'c.uuid',
  },
  routing_rules: {
    table: 'agent_routing_rules',
    item:
      `'uuid', c.uuid, 'detection_mode', c.detection_mode, 'trigger_keyword', c.trigger_keyword, ` +
      `'department_name', c.department_name, 'phrases', c.phrases, 'ai_prompt', c.ai_prompt, ` +
      `'voice_response', c.voice_response, 'voice_on_error', c.voice_on_error, 'voice_on_success', c.voice_on_success, ` +
      `'destination_type', c.destination_type, 'destination', c.destination, 'destination_agent_uuid', c.destination_agent_uuid, ` +
      `'transfer_type', c.transfer_type, 'transfer_config', c.transfer_config, 'priority', c.priority, 'is_active', c.is_active`,
    orderBy: 'c.priority, c.uuid',
  },
  guard_rules: {
    table: 'agent_guard_rules',
    item:
      `'uuid', c.uuid, 'name', c.name, 'when_condition', c.when_condition, 'example_phrases', c.example_phrases, ` +
      `'then_action', c.then_action, 'selected_channels', c.selected_channels, ` +
      `'say_before_forwarding', c.say_before_forwarding, 'say_before_end', c.say_before_end, ` +
      `'destination_type', c.destination_type, 'destination', c.destination, 'destination_agent_uuid', c.destination_agent_uuid, ` +
      `'is_active', c.is_active, 'is_default', c.is_default`,
    orderBy: 'c.uuid',
  },
  phone_numbers: {
    table: 'agent_phone_numbers',
    item: `'phone_number_uuid', c.uuid, 'number', c.number, 'status', c.status, 'country_code', c.country_code, 'type', c.type, 'capabilities', c.capabilities`,
    orderBy: 'c.number',
  },
  channels: {
    table: 'agent_channels',
    // The key is shown while the channel is web chat only (it is kept when the type changes, schemas/channel.ts).
    item: `'uuid', c.uuid, 'type', c.type, 'name', c.name, 'is_active', c.is_active, 'config', c.config, 'public_key', case when c.type = 'web_chat' then c.public_key end`,
    orderBy: 'c.uuid',
  },
};

const listColumns = Object.entries(LISTS).map(
  ([name, spec]) =>
    `coalesce((select json_agg(json_build_object(${spec.item}) order by ${spec.orderBy}) from "${spec.table}" c ` +
    `where c.agent_uuid = a.uuid and c.tenant_uuid = a.tenant_uuid), '[]'::json) as "${name}"`,
);

const agentColumns = [
  'a.uuid',
  'a.name',
  ...PERSONA_MEMBERS.map((member) => `a.${member}`),
  'a.status',
  'a.language',
  'a.speed',
  'a.timezone',
  'a.appointment_scheduling_enabled',
  'a.appointment_scheduling_randomly',
  'a.custom_llm_url',
  'a.voice_settings',
  'a.text_settings',
  'a.appointments',
  `${iso('a.created_at')} as created_at`,
  `${iso('a.updated_at')} as updated_at`,
];

/**
 * The whole agent in one statement: PostgreSQL aggregates every list as JSON next
 * to the agent's row, so an agent with hundreds of list items costs one round trip
 * and no entity hydration (measured against per-list queries in bench/api-read).
 * The tenant is a condition here because raw SQL bypasses the ORM's tenant filter.
 * Prepared: every chat turn reads its agent, and PostgreSQL would otherwise parse and
 * plan this statement, subqueries and all, on each read.
 */
export const SELECT_AGENTS = preparedStatement(
  'agents.read',
  `select ${[...agentColumns, ...listColumns].join(', ')} from "agents" a where a.tenant_uuid = $1 and a.uuid = any($2::uuid[])`,
);

export interface ReadOptions {
  /** With the settings slots other plugins add (default); without, one statement fewer per slot. */
  slots?: boolean;
}

/** The plugin's one reader, shared by its routes and its services (not exported from index.ts). */
export const agentReaderRef = createServiceRef<AgentReader>('agents.reader');

export class AgentReader {
  constructor(private readonly slots: readonly AgentSettingsSlot[]) {}

  /** One agent of the current tenant as the API returns it, or null. */
  async one(em: EntityManager, tenantUuid: string, agentUuid: string, options: ReadOptions = {}): Promise<AgentJson | null> {
    const [agent] = await this.many(em, tenantUuid, [agentUuid], options);
    return agent ?? null;
  }

  /** These agents of the tenant, in the order asked, skipping unknown ids. */
  async many(em: EntityManager, tenantUuid: string, agentUuids: readonly string[], { slots = true }: ReadOptions = {}): Promise<AgentJson[]> {
    if (agentUuids.length === 0) return [];
    const rows = await boundQuery<Record<string, any>>(em, SELECT_AGENTS, [tenantUuid, agentUuids]);
    const byUuid = new Map(rows.map((row) => [row.uuid as string, row]));
    const found = agentUuids.filter((uuid) => byUuid.has(uuid));
    const read = slots ? this.slots : [];
    const slotValues = await Promise.all(read.map((slot) => slot.load(em, found)));
    return found.map((uuid) => {
      const agent = toJson(byUuid.get(uuid)!);
      const settings = agent.settings as Record<string, unknown>;
      read.forEach((slot, index) => (settings[slot.key] = slotValues[index].get(uuid) ?? null));
      return agent;
    });
  }
}

/** An agent row of SELECT_AGENTS as the API returns it (settings slots not yet added). */
export function toJson(row: Record<string, any>): AgentJson {
  const json: AgentJson = { agent_uuid: row.uuid, name: row.name } as AgentJson;
  for (const member of PERSONA_MEMBERS) json[member] = row[member];
  Object.assign(json, {
    status: row.status,
    language: row.language,
    speed: row.speed,
    timezone: row.timezone,
    appointment_scheduling_enabled: row.appointment_scheduling_enabled,
    appointment_scheduling_randomly: row.appointment_scheduling_randomly,
    custom_llm_url: row.custom_llm_url,
    settings: {
      voice: mergeBySchema(VoiceSettings, voiceDefaults, row.voice_settings),
      text: mergeBySchema(TextSettings, textDefaults, row.text_settings),
    },
  });
  for (const name of ['guidelines', 'notes', 'procedures', 'training', 'intents', 'webhooks'] as const) json[name] = row[name];
  json.appointments = mergeBySchema(Appointments, appointmentsDefaults, row.appointments);
  for (const name of ['routing_rules', 'guard_rules', 'phone_numbers', 'channels'] as const) json[name] = row[name];
  json.created_at = row.created_at;
  json.updated_at = row.updated_at;
  return json;
}
