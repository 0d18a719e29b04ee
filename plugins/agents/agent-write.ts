import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Agent } from './entities';
import { AgentGuardRule, AgentGuideline, AgentNote, AgentProcedure, AgentRoutingRule, AgentTrainingRow } from './entities';
import { camelFields, orderedTextFields, procedureFields, settleDestination, trainingFields, type OrderedTextItem, type ProcedureItem } from './list-items';
import { PERSONA_MEMBERS } from './schemas/agent';
import { Appointments, ScheduleAssignmentSchema, assignmentDefaults } from './schemas/appointments';
import { TextSettings, textDefaults } from './schemas/text-settings';
import { VoiceSettings } from './schemas/voice-settings';
import { mergeBySchema } from './settings-merge';
import {
  checkAgentCatalogs,
  checkAgentReferences,
  checkGuardRule,
  checkRoutingRule,
  checkStepIntents,
  checkTextRanges,
  stepReferences,
  type Reference,
} from './validation/agent-rules';
import { FieldErrorList } from './validation/field-errors';
import type { AgentMemberCheck } from './member-checks';

/** The body of `POST /agents` and `PUT /agents/{uuid}` after schema validation. */
export type AgentWrite = Record<string, any>;

/** The agent's scalar members (persona, language, ...): what a write sets one by one. */
export const SCALAR_MEMBERS = [
  'name',
  ...PERSONA_MEMBERS,
  'language',
  'speed',
  'timezone',
  'appointment_scheduling_enabled',
  'appointment_scheduling_randomly',
  'custom_llm_url',
] as const;

/** The lists a PUT replaces whole, in the order they are written. */
const LISTS = ['guidelines', 'notes', 'procedures', 'training', 'routing_rules', 'guard_rules'] as const;

/**
 * Checks an agent body against every rule the schema cannot state, then applies it:
 * members present replace, absent ones stay, settings merge by group and member,
 * each list present replaces the agent's list. Nothing is written if a rule fails.
 * Returns the top-level members it changed.
 */
export async function applyAgentWrite(
  em: EntityManager,
  tenantUuid: string,
  agent: Agent,
  body: AgentWrite,
  isNew: boolean,
  checks: readonly AgentMemberCheck[] = [],
): Promise<string[]> {
  const errors = new FieldErrorList();
  checkAgentCatalogs(body, errors);
  const voice = body.settings?.voice === undefined ? agent.voiceSettings : (mergeBySchema(VoiceSettings, agent.voiceSettings, body.settings.voice) as Record<string, unknown>);
  const text = body.settings?.text === undefined ? agent.textSettings : (mergeBySchema(TextSettings, agent.textSettings, body.settings.text) as Record<string, unknown>);
  checkTextRanges(mergeBySchema(TextSettings, textDefaults, text) as Record<string, any>, errors);

  const agentReferences: Reference[] = [];
  const stepIntents: Reference[] = [];
  (body.routing_rules as any[] | undefined)?.forEach((rule, index) => {
    checkRoutingRule(rule, `routing_rules.${index}`, errors);
    if (rule.destination_agent_uuid) agentReferences.push({ path: `routing_rules.${index}.destination_agent_uuid`, uuid: rule.destination_agent_uuid });
  });
  (body.guard_rules as any[] | undefined)?.forEach((rule, index) => {
    checkGuardRule(rule, `guard_rules.${index}`, errors);
    if (rule.destination_agent_uuid) agentReferences.push({ path: `guard_rules.${index}.destination_agent_uuid`, uuid: rule.destination_agent_uuid });
  });
  (body.procedures as ProcedureItem[] | undefined)?.forEach((procedure, index) => stepIntents.push(...stepReferences(procedure.steps, `procedures.${index}`)));
  await checkAgentReferences(em, tenantUuid, isNew ? null : agent.uuid, agentReferences, errors);
  await checkStepIntents(em, isNew ? null : agent.uuid, stepIntents, errors);
  const appointments = body.appointments === undefined ? undefined : mergeAppointments(agent.appointments, body.appointments);
  if (appointments) for (const check of checks) if (check.member === 'appointments') await check.check(em, appointments, errors);
  errors.throwIfAny();

  const changed = new Set<string>();
  for (const member of SCALAR_MEMBERS) {
    if (body[member] !== undefined) {
      Object.assign(agent, camelFields({ [member]: body[member] }));
      changed.add(member);
    }
  }
  if (body.settings?.voice !== undefined || body.settings?.text !== undefined) {
    agent.voiceSettings = voice;
    agent.textSettings = text;
    changed.add('settings');
  }
  if (appointments) {
    agent.appointments = appointments;
    changed.add('appointments');
  }
  for (const list of LISTS) {
    if (body[list] === undefined) continue;
    await replaceList(em, agent, list, body[list], isNew);
    changed.add(list);
  }
  return [...changed];
}

/** `enabled` and `random_assignment` merge; `schedule_assignments`, when sent, is replaced, each filled with defaults. */
function mergeAppointments(stored: Record<string, unknown>, sent: Record<string, any>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored };
  if (sent.enabled !== undefined) merged.enabled = sent.enabled;
  if (sent.random_assignment !== undefined) merged.random_assignment = sent.random_assignment;
  if (sent.schedule_assignments !== undefined) {
    merged.schedule_assignments = sent.schedule_assignments.map((item: unknown) => mergeBySchema(ScheduleAssignmentSchema, assignmentDefaults, item));
  }
  return mergeBySchema(Appointments, {}, merged) as Record<string, unknown>;
}

/** For each list a PUT can replace: its entity, and the fields of the item at `index`. */
const LIST_ROWS: Record<(typeof LISTS)[number], { entity: EntityName<any>; fields(item: any, index: number): Record<string, unknown> }> = {
  guidelines: { entity: AgentGuideline, fields: (item: OrderedTextItem, index) => orderedTextFields(item, index) },
  notes: { entity: AgentNote, fields: (item: OrderedTextItem, index) => orderedTextFields(item, index) },
  procedures: { entity: AgentProcedure, fields: (item: ProcedureItem) => procedureFields(item) },
  training: { entity: AgentTrainingRow, fields: trainingFields },
  routing_rules: { entity: AgentRoutingRule, fields: (item, index) => settleDestination({ ...camelFields(item), priority: item.priority ?? index + 1 }) },
  guard_rules: { entity: AgentGuardRule, fields: (item) => settleDestination(camelFields(item)) },
};

/** Replaces one of the agent's lists with the items sent (their `uuid`s, if any, were dropped as read-only). */
async function replaceList(em: EntityManager, agent: Agent, list: (typeof LISTS)[number], items: unknown[], isNew: boolean): Promise<void> {
  const { entity, fields } = LIST_ROWS[list];
  if (!isNew) await em.nativeDelete(entity, { agentUuid: agent.uuid });
  items.forEach((item, index) => em.create(entity, { ...fields(item, index), agentUuid: agent.uuid }));
}
