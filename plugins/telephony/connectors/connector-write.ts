import { ValidationError, type FieldErrors, type SecretsService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { checkAgentBinding } from '../agent-links';
import { PbxExtensionConnector } from '../entities';
import { mergeNormalizer, NO_NORMALIZER } from '../schemas/normalizer';
import { addressList, hostProblem, pushProblem } from '../schemas/sip-values';
import { connectorPassword } from '../secret-columns';
import type { ConnectorPatchBody } from './connector-schemas';

/**
 * A create or an update of a connector: the members sent change (nested groups member
 * by member), the rest keep their value. Every problem is collected first and thrown as
 * one 422, before the row is touched.
 */
export async function applyConnectorWrite(
  row: PbxExtensionConnector,
  body: ConnectorPatchBody,
  { agents, secrets, tenantUuid, isNew }: { agents: AgentDirectory; secrets: SecretsService; tenantUuid: string; isNew: boolean },
): Promise<void> {
  const errors: FieldErrors = {};
  const registrar = body.pbx?.registrar_server ?? row.registrarServer;
  if (body.pbx?.registrar_server !== undefined) pushProblem(errors, 'pbx.registrar_server', hostProblem(body.pbx.registrar_server));
  if (isNew && body.pbx?.registrar_server === undefined) pushProblem(errors, 'pbx.registrar_server', 'is required');
  if (isNew && body.pbx?.username_extension === undefined) pushProblem(errors, 'pbx.username_extension', 'is required');

  const connectionType = body.connection_type ?? row.connectionType ?? 'udp';
  const port = body.pbx?.port ?? row.port ?? (connectionType === 'tls' ? 5061 : 5060);
  const allowedIp = body.inbound?.allowed_ip === undefined ? row.allowedIp : addressList(body.inbound.allowed_ip, 'inbound.allowed_ip', errors);

  const separate = body.auth?.has_separate_credentials ?? row.separateCredentials;
  let username = body.auth?.username === undefined ? row.authUsername : body.auth.username;
  if (!separate) {
    if (body.auth?.username) pushProblem(errors, 'auth.username', 'is only used with `has_separate_credentials: true`');
    username = null;
  } else if (!username) {
    pushProblem(errors, 'auth.username', 'is required with `has_separate_credentials: true`');
  }

  const agentUuid = body.agent_uuid === undefined ? row.agentUuid : body.agent_uuid;
  const phoneNumber = body.phone_number === undefined ? row.phoneNumber : body.phone_number;
  // Letting go of the agent stops the connector, as the agent's deletion does.
  const status = body.status ?? (agentUuid === null ? 'inactive' : (row.status ?? 'active'));
  if (status === 'active' && agentUuid === null) pushProblem(errors, 'status', 'can be `active` only with an `agent_uuid`');
  if (body.agent_uuid !== undefined || body.phone_number !== undefined) {
    await checkAgentBinding(agents, agentUuid, phoneNumber === null ? [] : [{ path: 'phone_number', number: phoneNumber }], errors);
  }
  const normalizer = mergeNormalizer(row.normalizer ?? NO_NORMALIZER, body.normalizer, errors);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  Object.assign(row, {
    name: body.name ?? row.name,
    status,
    phoneNumber,
    agentUuid,
    connectionType,
    setupMode: body.setup_mode ?? row.setupMode ?? 'both',
    registrarServer: registrar,
    port,
    usernameExtension: body.pbx?.username_extension ?? row.usernameExtension,
    allowedIp,
    separateCredentials: separate,
    authUsername: username,
    normalizer,
  });
  if (body.auth?.password !== undefined) {
    row.authPassword = body.auth.password === null ? null : secrets.encrypt(body.auth.password, connectorPassword.context(tenantUuid));
  }
}
