import {
  Component,
  DataEnvelope,
  NotFoundError,
  ReadOnly,
  SHARED_RESOURCE,
  Timestamp,
  Type,
  ValidationError,
  defineRoute,
  deleteRoute,
  newUuid,
  readRoute,
  type AnyRoute,
} from '../../../core';
import { ContactSetting } from '../entities';
import { run } from './contact-rows';
import { SETTING_KEY_PATTERN } from './field-keys';

const tags = ['contacts'];
export const SETTING_NOT_FOUND = 'Contact setting not found';

const KEY_DESCRIPTION = 'The setting’s key: lower-case letters, digits and `_`, starting with a letter, in up to four dot-separated segments (`approvals.auto_approve`)';

const SettingSchema = Component(
  'ContactSetting',
  Type.Object(
    {
      key: ReadOnly(Type.String({ pattern: SETTING_KEY_PATTERN, description: KEY_DESCRIPTION })),
      value: Type.Unknown({ description: 'Any JSON value but null' }),
      updated_at: ReadOnly(Timestamp()),
    },
    { description: 'One contact setting of the tenant' },
  ),
);

const settingJson = (setting: { key: string; value: unknown; updatedAt: Date | string }) => ({
  key: setting.key,
  value: setting.value,
  updated_at: new Date(setting.updatedAt).toISOString(),
});

const SettingParams = Type.Object({ key: Type.String({ pattern: SETTING_KEY_PATTERN, 'x-resource': 'contacts.setting', description: KEY_DESCRIPTION }) });

/*
 * PUT sets a key whether or not the tenant has it: a key names a slot every tenant has,
 * not one tenant's resource, so its path parameter is marked shared and the cross-tenant
 * sweep (which expects another tenant's id to be a 404) skips it. Its isolation (one
 * tenant's PUT never touches another's value) has its own test.
 */
const SettingPutParams = Type.Object({ key: Type.String({ pattern: SETTING_KEY_PATTERN, 'x-resource': SHARED_RESOURCE, description: KEY_DESCRIPTION }) });

const SettingPutBody = Type.Object(
  {
    key: Type.Optional(SettingSchema.properties.key),
    updated_at: Type.Optional(SettingSchema.properties.updated_at),
    value: SettingSchema.properties.value,
  },
  { additionalProperties: false, examples: [{ value: { enabled: true } }] },
);

const SettingsEnvelope = Type.Object({ success: Type.Boolean(), data: Type.Object({ items: Type.Array(SettingSchema) }) });

const listSettings = defineRoute({
  method: 'GET',
  path: '/api/v1/contact-settings',
  summary: 'List the tenant’s contact settings, by key',
  description: 'Only keys that were set; there are few, so the list is not paginated.',
  tags,
  response: SettingsEnvelope,
  handler: async ({ em }) => {
    const settings = await em.find(ContactSetting, {}, { orderBy: { key: 'asc' } });
    return { success: true, data: { items: settings.map(settingJson) } };
  },
});

const readSetting = readRoute({
  path: '/api/v1/contact-settings/:key',
  summary: 'Read a contact setting',
  description: 'A key that was never set (or was deleted) is a 404.',
  tags,
  params: SettingParams,
  resource: SettingSchema,
  read: async ({ params, em }) => {
    const setting = await em.findOne(ContactSetting, { key: params.key });
    if (!setting) throw new NotFoundError(SETTING_NOT_FOUND);
    return settingJson(setting);
  },
});

const putSetting = defineRoute({
  method: 'PUT',
  path: '/api/v1/contact-settings/:key',
  summary: 'Set a contact setting',
  description: 'Creates or replaces the value under the key (any JSON value but null: delete the setting instead).',
  tags,
  params: SettingPutParams,
  body: SettingPutBody,
  response: DataEnvelope(SettingSchema),
  handler: async ({ params, body, em, tenant }) => {
    if (body.value === null || body.value === undefined) throw ValidationError.field('value', 'must not be null (delete the setting instead)');
    const now = new Date();
    // One statement, so two first PUTs of a key race to an update instead of a unique violation.
    const [row] = await run<{ key: string; value: unknown; updatedAt: Date }>(
      em,
      'insert into contact_settings (uuid, tenant_uuid, created_at, updated_at, key, value) values (?, ?, ?, ?, ?, ?::jsonb) ' +
        'on conflict (tenant_uuid, key) do update set value = excluded.value, updated_at = excluded.updated_at ' +
        'returning key, value, updated_at as "updatedAt"',
      [newUuid(), tenant.uuid, now, now, params.key, JSON.stringify(body.value)],
    );
    return { data: settingJson(row) };
  },
});

const deleteSetting = deleteRoute({
  path: '/api/v1/contact-settings/:key',
  summary: 'Delete a contact setting',
  tags,
  params: SettingParams,
  message: 'Contact setting deleted',
  remove: async ({ params, em }) => {
    const removed = await em.nativeDelete(ContactSetting, { key: params.key });
    if (removed === 0) throw new NotFoundError(SETTING_NOT_FOUND);
  },
});

/** Contact settings: free-form JSON values by key, for the tenant (e.g. the analyzers’ approval behaviour). */
export const contactSettingRoutes: readonly AnyRoute[] = [listSettings, readSetting, putSetting, deleteSetting];
