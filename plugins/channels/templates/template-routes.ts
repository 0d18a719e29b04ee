import {
  DataEnvelope,
  DeletedEnvelope,
  ListEnvelope,
  NotFoundError,
  PageQuery,
  ReadOnly,
  ResourceId,
  SuccessEnvelope,
  Timestamp,
  Type,
  Uuid,
  ValidationError,
  defineRoute,
  deleted,
  findByUuid,
  pageOf,
  pageWindow,
  type AnyRoute,
  type Egress,
  type SecretsService,
} from '../../../core';
import type { ChannelDrivers } from '../channel-drivers';
import { ChatappTemplate } from '../entities';
import { createTemplate, deleteTemplate, listTemplates, type GraphAccess } from './template-graph';
import { accountForWaba, chatappAccount, templateJson, upsertTemplates, type ChatappAccount } from './template-store';

const TemplateSchema = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    connection_uuid: Uuid({ description: 'The chatapp connection whose business account holds the template' }),
    waba_id: ReadOnly(Type.String({ description: 'The business account id (the connection’s `business_account_id`)' })),
    template_id: ReadOnly(Type.String({ description: 'The platform’s id of the template: sync matches on it' })),
    name: Type.String({ description: 'Lower-case letters, digits and `_`' }),
    language: Type.String({ description: 'The platform’s language code (`en_US`)' }),
    category: Type.String({ description: '`MARKETING`, `UTILITY` or `AUTHENTICATION`' }),
    status: ReadOnly(
      Type.String({
        description:
          'The platform’s review status as last seen (`APPROVED`, `PENDING`, `REJECTED`, `PAUSED`, `DISABLED`, ...), from a sync or the platform’s `message_template_status_update` webhook on a chatapp channel’s hook; a template removed upstream keeps its last one',
      }),
    ),
    status_reason: ReadOnly(Type.Union([Type.String(), Type.Null()], { description: 'Why the platform last changed the status (a rejection’s reason), as its status webhook said; null when it gave none' })),
    components: Type.Array(Type.Unknown(), { description: 'As the platform describes them: `[{type: "BODY", text: "Hi {{1}}"}, ...]`' }),
    parameters: ReadOnly(
      Type.Record(Type.String(), Type.Integer(), { description: 'How many placeholders each text component has (`{"body": 2}`): a template task’s `variables` must fill exactly these, each with a string or a number, or in the body a Cloud API `{type: "currency", currency: {fallback_value, code, amount_1000}}` (ISO 4217 code, integer amount times 1000) or `{type: "date_time", date_time: {fallback_value}}`' }),
    ),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  },
  { additionalProperties: false },
);

const TemplateCreate = Type.Object(
  {
    connection_uuid: ResourceId('channels.connection', 'A chatapp connection of the tenant: the template is created under its business account'),
    name: Type.String({ pattern: '^[a-z0-9_]{1,512}$', description: 'Lower-case letters, digits and `_`' }),
    language: Type.String({ minLength: 2, maxLength: 20, description: 'The platform’s language code (`en_US`)' }),
    category: Type.Union([Type.Literal('MARKETING'), Type.Literal('UTILITY'), Type.Literal('AUTHENTICATION')]),
    components: Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1, maxItems: 20, description: 'As the platform takes them: `[{type: "BODY", text: "Hi {{1}}", example: {body_text: [["Ana"]]}}]`' }),
  },
  {
    additionalProperties: false,
    examples: [{ connection_uuid: '6f1c1e2a-3b4c-4d5e-8f60-718293a4b5c6', name: 'appointment_reminder', language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi {{1}}, see you on {{2}}.', example: { body_text: [['Ana', 'Monday']] } }] }],
  },
);

const TemplateParams = Type.Object({ uuid: ResourceId('channels.chatapp_template', 'The chatapp template') });

const SyncBody = Type.Object({ waba_id: Type.String({ minLength: 1, maxLength: 100, description: 'The business account id on the messaging platform (a chatapp connection’s `business_account_id`)' }) }, { additionalProperties: false });

const SyncResult = Type.Object({
  waba_id: Type.String(),
  meta_returned: Type.Integer({ description: 'Templates the platform returned (at most 10 pages were read)' }),
  local_total_after_sync: Type.Integer({ description: 'Templates stored for the business account after the sync' }),
});

export interface TemplateRouteDeps {
  drivers: ChannelDrivers;
  secrets: SecretsService;
  egress: Egress;
}

/** Chatapp message templates: created on the platform and stored, synced from it, deleted from both. */
export function templateRoutes({ drivers, secrets, egress }: TemplateRouteDeps): AnyRoute[] {
  const access = (account: ChatappAccount): GraphAccess => {
    const driver = drivers.get('chatapp');
    return { egress, apiBaseUrl: driver ? drivers.apiBaseUrl(driver) : '', accessToken: account.accessToken };
  };
  const found = async (em: Parameters<typeof findByUuid>[0], uuid: string) => {
    const row = await findByUuid(em, ChatappTemplate, uuid);
    if (!row) throw new NotFoundError('Chatapp template not found');
    return row;
  };

  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/chatapp/templates',
      summary: 'Create a chatapp template',
      description:
        'Submits the template to the platform under the business account of the chatapp connection `connection_uuid` names (`POST /{business_account_id}/message_templates`), ' +
        'then stores it with the id and review status the platform answers. A connection that is not a chatapp one of the tenant is a 422 at `connection_uuid`; ' +
        'a template the platform refuses is a 422 at `components` with its reason; a platform that fails or cannot be reached is a 502.',
      tags: ['channels'],
      body: TemplateCreate,
      status: 201,
      errors: [502],
      response: DataEnvelope(TemplateSchema),
      // The platform is called with no transaction open; the row is written after it answers.
      transactional: false,
      handler: async ({ body, em, tenant }) => {
        const account = await chatappAccount(em, secrets, body.connection_uuid);
        if (!account) throw new ValidationError({ connection_uuid: ['is not a chatapp connection of this tenant'] });
        const created = await createTemplate(access(account), account.wabaId, { name: body.name, language: body.language, category: body.category, components: body.components });
        const uuid = await em.transactional(async (tx) => {
          await upsertTemplates(tx, tenant.uuid, account, [{ id: created.id, name: body.name, language: body.language, status: created.status, category: created.category, components: body.components }]);
          return (await tx.findOneOrFail(ChatappTemplate, { platformId: created.id })).uuid;
        });
        return { data: templateJson(await found(em.fork(), uuid)) };
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/api/v1/chatapp/templates',
      summary: 'List chatapp templates, by name',
      tags: ['channels'],
      query: PageQuery({ waba_id: Type.Optional(Type.String({ maxLength: 100, description: 'Only the templates of this business account' })) }),
      response: ListEnvelope(TemplateSchema),
      handler: async ({ query, em }) => {
        const where = query.waba_id ? { wabaId: query.waba_id } : {};
        const [rows, total] = await em.findAndCount(ChatappTemplate, where, { orderBy: { name: 'asc', language: 'asc', uuid: 'asc' }, ...pageWindow(query) });
        return pageOf(rows.map(templateJson), total, query);
      },
    }),

    defineRoute({
      method: 'GET',
      path: '/api/v1/chatapp/templates/:uuid',
      summary: 'Read a chatapp template',
      tags: ['channels'],
      params: TemplateParams,
      errors: [404],
      response: DataEnvelope(TemplateSchema),
      handler: async ({ params, em }) => ({ data: templateJson(await found(em, params.uuid)) }),
    }),

    defineRoute({
      method: 'DELETE',
      path: '/api/v1/chatapp/templates/:uuid',
      summary: 'Delete a chatapp template',
      description:
        'Deletes it on the platform by name (the platform deletes every language of that name), then here. A template the platform no longer has is deleted here only; ' +
        'one whose connection is gone too. A platform that fails is a 502 and nothing is deleted.',
      tags: ['channels'],
      params: TemplateParams,
      errors: [404, 502],
      response: DeletedEnvelope,
      transactional: false,
      handler: async ({ params, em }) => {
        const row = await found(em, params.uuid);
        const account = await chatappAccount(em, secrets, row.connectionUuid);
        if (account) await deleteTemplate(access(account), row.wabaId, row.name);
        await em.transactional(async (tx) => {
          await tx.nativeDelete(ChatappTemplate, { uuid: row.uuid });
        });
        return deleted('Chatapp template deleted');
      },
    }),

    defineRoute({
      method: 'POST',
      path: '/api/v1/chatapp/templates/sync',
      summary: 'Sync the chatapp templates of a business account',
      description:
        'Reads the platform’s templates of the business account (`GET /{waba_id}/message_templates`, following `paging.next`, at most 10 pages) and upserts them by the platform’s template id. ' +
        'Nothing is deleted here: a template removed upstream keeps its last status until deleted with a template delete. Idempotent. ' +
        'A `waba_id` no chatapp connection of the tenant holds as its `business_account_id` is a 422 at `waba_id`.',
      tags: ['channels'],
      body: SyncBody,
      errors: [502],
      response: SuccessEnvelope(SyncResult),
      transactional: false,
      handler: async ({ body, em, tenant }) => {
        const account = await accountForWaba(em, secrets, body.waba_id);
        if (!account) throw new ValidationError({ waba_id: ['is not the business_account_id of a chatapp connection of this tenant'] });
        const templates = await listTemplates(access(account), account.wabaId);
        const total = await em.transactional((tx) => upsertTemplates(tx, tenant.uuid, account, templates));
        return { success: true, message: 'Templates synced', data: { waba_id: account.wabaId, meta_returned: templates.length, local_total_after_sync: total } };
      },
    }),
  ];
}
