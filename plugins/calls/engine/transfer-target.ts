import type { AgentJson } from '../../agents';
import type { ChatTurnJson } from '../../runtime';
import type { CallInstruction, TransferMode } from '../driver';
import type { Call } from '../entities';
import { callingNumbers, type VoiceConfig } from './agent-line';
import type { CallDeps } from './deps';

type Transfer = NonNullable<ChatTurnJson['transfer']>;

/**
 * `transfer_type` values (case aside) that hand the call over announced; every other value
 * (`transfer_call`, the spec's example and the default, `cold`, `blind`, an unknown one)
 * hands it over at once. The spec leaves the values open: the common names of both are taken.
 */
const WARM_TYPES = new Set(['warm', 'warm_transfer', 'attended', 'attended_transfer', 'announced', 'announced_transfer', 'consult', 'consultative']);

export const transferMode = (transferType: unknown): TransferMode => (typeof transferType === 'string' && WARM_TYPES.has(transferType.trim().toLowerCase()) ? 'warm' : 'cold');

interface RoutingRuleJson {
  uuid: string;
  department_name?: string;
  voice_on_error?: string;
  transfer_type?: string;
  transfer_config?: Record<string, unknown>;
}

/**
 * Where a rule hands the call, or why it cannot; either way `fallback` is what the agent says
 * if the call comes back (nowhere to go, or nobody answered): null for the default line.
 */
export type TransferPlan =
  | { ok: true; instruction: Extract<CallInstruction, { type: 'transfer' }>; description: string; fallback: string | null }
  | { ok: false; reason: string; fallback: string | null };

/** `transfer_config.fallback_message`, else the rule's `voice_on_error` (`Said when the transfer fails`). */
function fallbackLine(rule: RoutingRuleJson | null): string | null {
  const configured = rule?.transfer_config?.fallback_message;
  if (typeof configured === 'string' && configured.trim() !== '') return configured.trim();
  return rule?.voice_on_error?.trim() || null;
}

/** How long the callee rings: `transfer_config.timeout_seconds`, within the 5 to 600 seconds Twilio's `<Dial timeout>` takes; absent, the provider's default. */
function ringSeconds(rule: RoutingRuleJson | null): number | undefined {
  const configured = rule?.transfer_config?.timeout_seconds;
  return typeof configured === 'number' && Number.isFinite(configured) ? Math.min(600, Math.max(5, Math.round(configured))) : undefined;
}

/** The tenant's PBX extension connector of `extension`, dialled as SIP at its registrar (routing rules and the live `forward`); null when there is none. */
export async function extensionTarget(deps: CallDeps, extension: string): Promise<{ destination: string; description: string } | null> {
  const found = await deps.pbx.extension(extension);
  return found ? { destination: found.sipUri, description: `extension ${extension} (${found.name}) at ${found.sipUri}` } : null;
}

const routingRule = (agent: AgentJson | null, transfer: Transfer): RoutingRuleJson | null =>
  transfer.kind === 'routing' ? (((agent?.routing_rules ?? []) as RoutingRuleJson[]).find((rule) => rule.uuid === transfer.rule_uuid) ?? null) : null;

/** What a warm transfer's callee hears: `transfer_config.announcement`, else who is calling and for what. */
function announcementText(rule: RoutingRuleJson | null, call: Pick<Call, 'direction' | 'from' | 'to'>, agentName: string): string {
  const configured = rule?.transfer_config?.announcement;
  if (typeof configured === 'string' && configured.trim() !== '') return configured.trim();
  const customer = call.direction === 'outbound' ? call.to : call.from;
  const department = rule?.department_name?.trim();
  return `Transferred call from ${customer}${department ? ` for ${department}` : ''}, handed over by ${agentName || 'the assistant'}.`;
}

/**
 * Where a routing or guard rule hands the call: its `destination` (a number, a SIP
 * address); for `destination_type: extension`, the tenant's active PBX extension connector
 * of that extension, dialled as SIP at its registrar; for `destination_type: agent`, the
 * first number of that agent that takes calls (the call rings there and reaches that agent
 * as an incoming call). A routing rule's `transfer_type` says cold or warm (`transferMode`).
 * When there is nowhere to go the plan says why; the call then comes back to the agent (transfers.ts `takeBack`).
 */
export async function planTransfer(deps: CallDeps, call: Pick<Call, 'agentUuid' | 'direction' | 'from' | 'to'>, voice: VoiceConfig, transfer: Transfer): Promise<TransferPlan> {
  const agent = await deps.agents.getWithoutSlots(call.agentUuid);
  const rule = routingRule(agent, transfer);
  const fallback = fallbackLine(rule);
  const fail = (reason: string): TransferPlan => ({ ok: false, reason, fallback });
  let destination: string;
  let description: string;
  const type = transfer.destination_type.trim().toLowerCase();
  if (type === 'agent') {
    if (!transfer.destination_agent_uuid) return fail('the rule names no destination agent');
    const target = await deps.agents.getWithoutSlots(transfer.destination_agent_uuid);
    if (!target) return fail(`agent ${transfer.destination_agent_uuid} is not an agent of this tenant`);
    const number = callingNumbers(target)[0];
    if (!number) return fail(`agent ${transfer.destination_agent_uuid} has no active number that takes calls`);
    destination = number;
    description = `agent ${transfer.destination_agent_uuid} at ${number}`;
  } else if (type === 'extension') {
    const extension = transfer.destination.trim();
    if (extension === '') return fail('the rule names no extension');
    const found = await extensionTarget(deps, extension);
    if (!found) return fail(`extension ${extension} is not a PBX extension connector of this tenant`);
    ({ destination, description } = found);
  } else {
    destination = transfer.destination.trim();
    if (destination === '') return fail('the rule names no destination');
    description = destination;
  }
  const mode = transferMode(rule?.transfer_type);
  const instruction: Extract<CallInstruction, { type: 'transfer' }> = { type: 'transfer', destination, mode };
  if (mode === 'warm') instruction.announcement = { text: announcementText(rule, call, agent?.name ?? ''), language: voice.language, voice: voice.voice };
  const timeout = ringSeconds(rule);
  if (timeout !== undefined) instruction.timeoutSeconds = timeout;
  return { ok: true, instruction, description: `${mode} ${description}`, fallback };
}
