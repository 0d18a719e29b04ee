import { ValidationError, type FieldErrors, type SecretsService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { checkAgentBinding } from '../agent-links';
import { SipTrunkConnection } from '../entities';
import { mergeNormalizer, NO_NORMALIZER } from '../schemas/normalizer';
import { addressList, hostProblem, pushProblem } from '../schemas/sip-values';
import { trunkPassword } from '../secret-columns';
import { DEFAULT_CODECS, MAX_TRUNK_NUMBERS, type TrunkPatchBody } from './trunk-schemas';

/** The numbers after a write: `phone_numbers` replaces the list; `phone_number` then goes first (added when missing), or null empties it. */
function numbersAfter(stored: string[], body: TrunkPatchBody): string[] {
  const list = body.phone_numbers ?? stored;
  if (body.phone_number === undefined) return list;
  if (body.phone_number === null) return [];
  return [body.phone_number, ...list.filter((number) => number !== body.phone_number)];
}

/**
 * A create or an update of a trunk: the members sent change (`auth` and `normalizer`
 * member by member), the rest keep their value. Every problem is collected first and
 * thrown as one 422, before the row is touched.
 */
export async function applyTrunkWrite(
  row: SipTrunkConnection,
  body: TrunkPatchBody,
  { agents, secrets, tenantUuid }: { agents: AgentDirectory; secrets: SecretsService; tenantUuid: string },
): Promise<void> {
  const errors: FieldErrors = {};
  if (body.gateway !== undefined) pushProblem(errors, 'gateway', hostProblem(body.gateway));
  if (body.secondary_gateway) pushProblem(errors, 'secondary_gateway', hostProblem(body.secondary_gateway));
  const transport = body.transport ?? row.transport ?? 'udp';
  const allowedIps = body.allowed_ips === undefined ? row.allowedIps : addressList(body.allowed_ips, 'allowed_ips', errors);

  const username = body.auth?.username === undefined ? row.authUsername : body.auth.username;
  const hasPassword = body.auth?.password === undefined ? row.authPassword !== null : body.auth.password !== null;
  if (hasPassword && username === null) pushProblem(errors, 'auth.username', 'is required with a password');

  const numbers = numbersAfter(row.phoneNumbers, body);
  if (numbers.length > MAX_TRUNK_NUMBERS) pushProblem(errors, 'phone_numbers', `must hold at most ${MAX_TRUNK_NUMBERS} numbers`);
  const agentUuid = body.agent_uuid === undefined ? row.agentUuid : body.agent_uuid;
  // Letting go of the agent stops the trunk, as the agent's deletion does.
  const status = body.status ?? (agentUuid === null ? 'inactive' : (row.status ?? 'active'));
  if (status === 'active' && agentUuid === null) pushProblem(errors, 'status', 'can be `active` only with an `agent_uuid`');
  if (body.agent_uuid !== undefined || body.phone_numbers !== undefined || body.phone_number !== undefined) {
    // Refusals are named where the client wrote the number: `phone_number`, or its place in the `phone_numbers` sent (or stored).
    const pathOf = (number: string, index: number) => {
      if (body.phone_number === number) return 'phone_number';
      if (body.phone_numbers) return `phone_numbers.${body.phone_numbers.indexOf(number)}`;
      return body.phone_number === undefined ? `phone_numbers.${index}` : 'phone_numbers';
    };
    const named = numbers.map((number, index) => ({ number, path: pathOf(number, index) }));
    await checkAgentBinding(agents, agentUuid, named, errors);
  }
  const normalizer = mergeNormalizer(row.normalizer ?? NO_NORMALIZER, body.normalizer, errors);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  Object.assign(row, {
    name: body.name ?? row.name,
    status,
    agentUuid,
    phoneNumbers: numbers,
    gateway: body.gateway ?? row.gateway,
    secondaryGateway: body.secondary_gateway === undefined ? row.secondaryGateway : body.secondary_gateway,
    port: body.port ?? row.port ?? (transport === 'tls' ? 5061 : 5060),
    transport,
    authUsername: username,
    allowedIps,
    codecs: body.codecs ?? row.codecs ?? DEFAULT_CODECS,
    normalizer,
  });
  if (body.auth?.password !== undefined) {
    row.authPassword = body.auth.password === null ? null : secrets.encrypt(body.auth.password, trunkPassword.context(tenantUuid));
  }
}
