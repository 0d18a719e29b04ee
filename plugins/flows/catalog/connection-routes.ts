import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  PageQuery,
  ResourceId,
  Type,
  ValidationError,
  defineRoute,
  deleteRoute,
  findByUuid,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type FieldErrors,
  type TenantRef,
} from '../../../core';
import type { FlowCatalog } from '../app/flow-catalog';
import { sealCredentials } from '../connections/connection-store';
import { testCredentials } from '../connections/connection-test';
import { Flow, FlowConnection, FlowStep } from '../entities';
import type { FlowsRuntime } from '../flows-runtime';
import { validateConfig } from '../model/config-validation';
import { ConnectionCreate, ConnectionPatch, ConnectionQuery, FlowAppConnectionSchema } from './schemas';

const ConnectionParams = Type.Object({ uuid: ResourceId('flows.connection', 'The connection') });

/** What every route shows of a connection: never its credentials, sealed or not. */
export const connectionJson = (row: FlowConnection) => ({
  uuid: row.uuid,
  app_uid: row.appUid,
  label: row.label,
  status: row.status,
  status_message: row.statusMessage,
  created_at: row.createdAt.toISOString(),
});
const toJson = connectionJson;

/** Credentials must match the app's `auth.schema`; problems are named at `credentials.<path>`. */
function credentialErrors(catalog: FlowCatalog, appUid: string, credentials: Record<string, unknown>): FieldErrors {
  const auth = catalog.app(appUid)?.auth;
  // The app's plugin was uninstalled since: nothing can say what its credentials look like.
  if (!auth) return { credentials: [`cannot be checked: the app "${appUid}" is not installed`] };
  return validateConfig(auth.schema, credentials, { basePath: 'credentials', atRunTime: true });
}

/** Flows not deleted that have a step using the connection, by name. */
async function flowsUsing(em: EntityManager, connectionUuid: string): Promise<Array<Pick<Flow, 'uuid' | 'name'>>> {
  const steps = await em.find(FlowStep, { appConnectionUuid: connectionUuid }, { fields: ['flowUuid'] });
  if (steps.length === 0) return [];
  return em.find(Flow, { uuid: { $in: [...new Set(steps.map((step) => step.flowUuid))] }, deletedAt: null }, { fields: ['uuid', 'name'], orderBy: { name: 'asc' } });
}

/** The tenant's connection, else the 404. */
async function found(em: EntityManager, uuid: string): Promise<FlowConnection> {
  const row = await findByUuid(em, FlowConnection, uuid);
  if (!row) throw new NotFoundError('Connection not found');
  return row;
}

const TESTED =
  'When the app tests connections, the credentials are then tried against its service before anything is stored: a refusal is a 422 at `credentials` ' +
  'with the app’s message (so is a test that cannot reach the service).';

/** App connections (decisions.md): a tenant's credentials for one `connect` app, sealed at rest and never returned. */
export const connectionRoutes = (runtime: FlowsRuntime): AnyRoute[] => [createConnection(runtime), listConnections, readConnection, updateConnection(runtime), deleteConnection];

/** What a connection test is given: the app's service is called through egress, its log lines name the app. */
const testContext = ({ egress, logger }: FlowsRuntime, tenant: TenantRef, appUid: string) => ({ tenant, egress, logger: logger.child({ flow_app: appUid }) });

const createConnection = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/flow/connections',
    summary: 'Create an app connection',
    description:
      '`app_uid` must be a `connect` app of the catalog (422 at `app_uid` otherwise). `credentials` must match the app’s `auth.schema` ' +
      `(\`GET /api/v1/flow/apps/{uid}\`; 422 at \`credentials.<path>\`); they are stored encrypted for this tenant and no route ever returns them. ${TESTED}`,
    body: ConnectionCreate,
    status: 201,
    response: DataEnvelope(FlowAppConnectionSchema),
    // The connection test calls the app's service: no transaction is open while it answers (one opens to store the row).
    transactional: false,
    handler: async ({ body, em, tenant }) => {
      const { catalog, secrets } = runtime;
      const app = catalog.app(body.app_uid);
      const errors: FieldErrors =
        app === undefined
          ? { app_uid: ['is not an app of the catalog'] }
          : app.category !== 'connect'
            ? { app_uid: [`is the builtin app "${app.name}", which takes no connection`] }
            : credentialErrors(catalog, app.uid, body.credentials);
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      await testCredentials(app!, body.credentials, testContext(runtime, tenant, body.app_uid));
      const row = await em.transactional(async (tx) => {
        const created = tx.create(FlowConnection, { appUid: body.app_uid, label: body.label, credentials: sealCredentials(secrets, tenant.uuid, body.credentials) });
        await tx.flush();
        return created;
      });
      return { data: toJson(row) };
    },
  });

const listConnections = listRoute({
  path: '/api/v1/flow/connections',
  summary: 'List app connections, newest first',
  description: '`app_uid` keeps the connections of one app (what a step of that app can use).',
  query: PageQuery(ConnectionQuery.properties),
  item: FlowAppConnectionSchema,
  page: async ({ query, em }) => {
    const [rows, total] = await em.findAndCount(FlowConnection, query.app_uid === undefined ? {} : { appUid: query.app_uid }, {
      orderBy: { uuid: 'desc' },
      ...pageWindow(query),
    });
    return [rows.map(toJson), total];
  },
});

const readConnection = readRoute({
  path: '/api/v1/flow/connections/:uuid',
  summary: 'Read an app connection',
  description: 'Without its credentials, which no route returns.',
  params: ConnectionParams,
  resource: FlowAppConnectionSchema,
  read: async ({ params, em }) => toJson(await found(em, params.uuid)),
});

const updateConnection = (runtime: FlowsRuntime) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/flow/connections/:uuid',
    summary: 'Rename an app connection or replace its credentials',
    description:
      'Members sent change, absent ones stay. `credentials` replaces the stored credentials whole and must match the app’s `auth.schema`. ' +
      `Steps using the connection use the new credentials from their next run. \`app_uid\` cannot change. ${TESTED} A rename alone tests nothing.`,
    params: ConnectionParams,
    body: ConnectionPatch,
    errors: [404],
    response: DataEnvelope(FlowAppConnectionSchema),
    // As for create: the connection test runs with no transaction open.
    transactional: false,
    handler: async ({ params, body, em, tenant }) => {
      const { catalog, secrets } = runtime;
      let sealed: string | undefined;
      if (body.credentials !== undefined) {
        const { appUid } = await found(em, params.uuid);
        const errors = credentialErrors(catalog, appUid, body.credentials);
        if (Object.keys(errors).length > 0) throw new ValidationError(errors);
        await testCredentials(catalog.app(appUid)!, body.credentials, testContext(runtime, tenant, appUid));
        sealed = sealCredentials(secrets, tenant.uuid, body.credentials);
      }
      const row = await em.transactional(async (tx) => {
        // Read again in the transaction: it may have been deleted while the test ran.
        const current = await found(tx, params.uuid);
        if (sealed !== undefined) {
          current.credentials = sealed;
          // New credentials are a new grant: whatever was refused before is the old one's.
          current.status = 'connected';
          current.statusMessage = null;
        }
        if (body.label !== undefined) current.label = body.label;
        await tx.flush();
        return current;
      });
      return { data: toJson(row) };
    },
  });

const deleteConnection = deleteRoute({
  path: '/api/v1/flow/connections/:uuid',
  summary: 'Delete an app connection',
  description:
    'Refused with 409, naming the flows, while a step of a flow that is not deleted uses the connection: change or delete those steps first ' +
    '(a live flow must be undeployed to edit them). Steps of deleted flows do not hold it; an execution of such a flow still pending then fails at that step.',
  params: ConnectionParams,
  errors: [404, 409],
  message: 'Connection deleted',
  remove: async ({ params, em }) => {
    // Locked for update: a step being created with this connection (which locks it for share) either
    // commits before the check below sees it, or finds the connection gone.
    const row = await em.findOne(FlowConnection, { uuid: params.uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw new NotFoundError('Connection not found');
    const flows = await flowsUsing(em, row.uuid);
    if (flows.length > 0) {
      throw new ConflictError(`The connection is used by steps of ${flows.length === 1 ? 'the flow' : 'the flows'} ${flows.map((flow) => `"${flow.name}" (${flow.uuid})`).join(', ')}: change or delete those steps first`);
    }
    em.remove(row);
  },
});
