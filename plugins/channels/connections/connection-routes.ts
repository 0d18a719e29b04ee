import {
  ConflictError,
  DataEnvelope,
  HttpError,
  DeletedEnvelope,
  ListEnvelope,
  NotFoundError,
  PageQuery,
  ReadOnly,
  ResourceId,
  Timestamp,
  Type,
  Uuid,
  ValidationError,
  defineRoute,
  deleted,
  pageOf,
  pageWindow,
  type AnyRoute,
  type Egress,
  type Logger,
  type SecretsService,
} from '../../../core';
import type { AgentChannels } from '../../agents';
import type { ChannelDrivers } from '../channel-drivers';
import { ChannelSendError, type ChannelDriver } from '../driver';
import { publicOrigin } from '../inbound/inbound-request';
import { ChannelConnection } from '../entities';
import { connectionJson, credentialErrors, findConnection, openConnection, sealCredentials } from './connection-store';

export const ConnectionSchema = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    provider: Type.String({ description: 'The provider of a channel driver: `twilio`, `chatapp`, `social`, `telegram`, or one a plugin adds' }),
    label: Type.String({ minLength: 1, maxLength: 200 }),
    config: Type.Record(Type.String(), Type.Unknown(), { description: 'Non-secret settings of the connection' }),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  },
  { additionalProperties: false },
);

const ConnectionCreate = Type.Object(
  {
    provider: ConnectionSchema.properties.provider,
    label: ConnectionSchema.properties.label,
    credentials: Type.Record(Type.String(), Type.Unknown(), {
      description: 'As the provider’s driver describes them (twilio: `account_sid`, `auth_token`; telegram: `bot_token`, `secret_token`; ...). Stored sealed; no route returns them',
    }),
    config: Type.Optional(ConnectionSchema.properties.config),
  },
  { additionalProperties: false, examples: [{ provider: 'twilio', label: 'Main SMS number', credentials: { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: 'your-auth-token' } }] },
);

const ConnectionParams = Type.Object({ uuid: ResourceId('channels.connection', 'The channel connection') });

const RegisterWebhookBody = Type.Object(
  { channel_uuid: Uuid({ description: 'The agent channel whose hook the provider is to call: one whose `config.connection_uuid` is this connection' }) },
  { additionalProperties: false },
);
const RegisteredWebhook = Type.Object(
  {
    connection_uuid: Uuid(),
    channel_uuid: Uuid(),
    url: Type.String({ description: 'The hook URL given to the provider: `{PUBLIC_BASE_URL}/hooks/channels/{channel_uuid}`' }),
  },
  { additionalProperties: false },
);

export interface ConnectionRouteDeps {
  drivers: ChannelDrivers;
  secrets: SecretsService;
  egress: Egress;
  logger: Logger;
  channels: AgentChannels;
}

/** The provider's check of the credentials, with no transaction open; a refusal or a failure to ask is a 422 at `credentials`. */
async function testCredentials(driver: ChannelDriver, credentials: Record<string, unknown>, { drivers, egress, logger }: ConnectionRouteDeps): Promise<void> {
  if (!driver.test) return;
  let result: Awaited<ReturnType<NonNullable<ChannelDriver['test']>>>;
  try {
    result = await driver.test(credentials, { egress, apiBaseUrl: drivers.apiBaseUrl(driver) });
  } catch (error) {
    logger.warn('channel connection test failed', { provider: driver.provider, error: error instanceof Error ? error.message : String(error) });
    throw new ValidationError({ credentials: [`could not be checked with ${driver.name}: ${error instanceof Error ? error.message : String(error)}`] });
  }
  if (!result.valid) throw new ValidationError({ credentials: [result.message] });
}

/** Channel connections: a tenant's accounts at messaging providers, credentials sealed and never returned. */
export function connectionRoutes(deps: ConnectionRouteDeps): AnyRoute[] {
  const { drivers, secrets, channels } = deps;
  const found = async (em: Parameters<typeof findConnection>[0], uuid: string) => {
    const row = await findConnection(em, uuid);
    if (!row) throw new NotFoundError('Channel connection not found');
    return row;
  };

  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/channel-connections',
      summary: 'Create a channel connection',
      description:
        '`provider` must be one an installed channel driver serves (422 at `provider`). `credentials` must match that driver’s schema (422 at `credentials.<path>`); ' +
        'where the driver can, they are tried against the provider first, and a refusal is a 422 at `credentials`. They are stored encrypted and never returned. ' +
        'An agent channel (`sms`, `chatapp`, `social`) names the connection in `config.connection_uuid`; the provider then calls `/hooks/channels/{channel_uuid}`.',
      tags: ['channels'],
      body: ConnectionCreate,
      status: 201,
      response: DataEnvelope(ConnectionSchema),
      // The driver's test calls the provider: no transaction is open while it answers.
      transactional: false,
      handler: async ({ body, em, tenant }) => {
        const driver = drivers.get(body.provider);
        if (!driver) throw new ValidationError({ provider: [`is not a provider of an installed channel driver (${drivers.providers().join(', ') || 'none installed'})`] });
        const errors = credentialErrors(driver, body.credentials);
        if (Object.keys(errors).length > 0) throw new ValidationError(errors);
        await testCredentials(driver, body.credentials, deps);
        const row = await em.transactional(async (tx) => {
          const created = tx.create(ChannelConnection, {
            provider: driver.provider,
            label: body.label,
            credentials: sealCredentials(secrets, tenant.uuid, body.credentials),
            config: body.config ?? {},
          });
          await tx.flush();
          return created;
        });
        return { data: connectionJson(row) };
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/api/v1/channel-connections',
      summary: 'List channel connections, newest first',
      tags: ['channels'],
      query: PageQuery(),
      response: ListEnvelope(ConnectionSchema),
      handler: async ({ query, em }) => {
        const [rows, total] = await em.findAndCount(ChannelConnection, {}, { orderBy: { uuid: 'desc' }, ...pageWindow(query) });
        return pageOf(rows.map(connectionJson), total, query);
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/api/v1/channel-connections/:uuid',
      summary: 'Read a channel connection',
      description: 'Without its credentials, which no route returns.',
      tags: ['channels'],
      params: ConnectionParams,
      errors: [404],
      response: DataEnvelope(ConnectionSchema),
      handler: async ({ params, em }) => ({ data: connectionJson(await found(em, params.uuid)) }),
    }),

    defineRoute({
      method: 'POST',
      path: '/api/v1/channel-connections/:uuid/register-webhook',
      summary: 'Register an agent channel’s hook with the provider',
      description:
        'For providers whose webhook is set through their API rather than their console (Telegram: `setWebhook` with `url` and the connection’s `secret_token`). ' +
        'The hook names an agent channel, not the connection, so the channel is given: one of the tenant’s agent channels using this connection (422 at `channel_uuid` otherwise). ' +
        'Explicit, not done when a channel is saved: a bot has one webhook, so registering moves it, and the channel must exist before the provider calls it. ' +
        'The URL is built from PUBLIC_BASE_URL, else from this request’s origin. 409 when the connection’s driver has no such call (set the hook in the provider’s console); ' +
        'the provider refusing is a 422 at `channel_uuid` with its reason; it failing or unreachable, a 502.',
      tags: ['channels'],
      params: ConnectionParams,
      body: RegisterWebhookBody,
      errors: [404, 409, 502],
      response: DataEnvelope(RegisteredWebhook),
      // The provider is called: no transaction is open while it answers.
      transactional: false,
      handler: async ({ params, body, em, req }) => {
        const row = await found(em, params.uuid);
        const driver = drivers.get(row.provider);
        if (!driver) throw new ConflictError(`No installed channel driver serves the connection’s provider (${row.provider})`);
        if (!driver.registerWebhook) throw new ConflictError(`${driver.name} hooks are not registered through its API: give it the channel’s hook URL in its console`);
        const channelUuid = body.channel_uuid.toLowerCase();
        const users = await channels.usingConnection(em, row.uuid);
        if (!users.some((channel) => channel.channel_uuid === channelUuid)) throw new ValidationError({ channel_uuid: ['is not an agent channel using this connection (its config.connection_uuid)'] });
        const url = `${publicOrigin(req, drivers.publicBaseUrl())}/hooks/channels/${channelUuid}`;
        const context = {
          connection: openConnection(secrets, row),
          egress: deps.egress,
          apiBaseUrl: drivers.apiBaseUrl(driver),
          hookUrl: url,
          logger: deps.logger.child({ provider: driver.provider, channel_uuid: channelUuid }),
        };
        try {
          await driver.registerWebhook(context, { url });
        } catch (error) {
          if (!(error instanceof ChannelSendError)) throw error;
          if (error.retryable) throw new HttpError(502, `${driver.name} could not register the hook: ${error.message}`);
          throw new ValidationError({ channel_uuid: [`${driver.name} refused its hook URL ${url}: ${error.message}`] });
        }
        return { data: { connection_uuid: row.uuid, channel_uuid: channelUuid, url } };
      },
    }),

    defineRoute({
      method: 'DELETE',
      path: '/api/v1/channel-connections/:uuid',
      summary: 'Delete a channel connection',
      description: 'Refused with 409, naming them, while agent channels use the connection (`config.connection_uuid`): point them elsewhere or delete them first.',
      tags: ['channels'],
      params: ConnectionParams,
      errors: [404, 409],
      response: DeletedEnvelope,
      handler: async ({ params, em }) => {
        const row = await found(em, params.uuid);
        const users = await channels.usingConnection(em, row.uuid);
        if (users.length > 0) {
          const named = users.map((channel) => `${channel.type} channel ${channel.name ? `"${channel.name}" ` : ''}(${channel.channel_uuid}) of agent ${channel.agent_uuid}`);
          throw new ConflictError(`The connection is used by ${users.length === 1 ? 'the agent channel' : 'the agent channels'} ${named.join(', ')}: change or delete ${users.length === 1 ? 'it' : 'them'} first`);
        }
        em.remove(row);
        return deleted('Channel connection deleted');
      },
    }),
  ];
}
