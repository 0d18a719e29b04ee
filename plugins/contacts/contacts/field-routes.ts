import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  PageQuery,
  ValidationError,
  defineRoute,
  deleteRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
  type FieldErrors,
} from '../../../core';
import { ContactField } from '../entities';
import type { ContactFieldType } from '../entities/contact-field.entity';
import { run } from './contact-rows';
import { fieldKeyProblem } from './field-keys';
import { ContactFieldSchema, FieldCreateBody, FieldParams, FieldPatchBody, contactFieldJson } from './field-view';

const tags = ['contacts'];
export const FIELD_NOT_FOUND = 'Contact field not found';
const duplicateKey = (key: string) => new ConflictError(`A contact field with key "${key}" already exists`);

async function findField(em: EntityManager, key: string): Promise<ContactField> {
  const field = await em.findOne(ContactField, { key });
  if (!field) throw new NotFoundError(FIELD_NOT_FOUND);
  return field;
}

const isKeyViolation = (error: unknown) =>
  [error, (error as { cause?: unknown })?.cause].some(
    (candidate) => (candidate as { code?: string; constraint?: string } | undefined)?.constraint === 'contact_fields_tenant_uuid_key_unique',
  );

const createField = defineRoute({
  method: 'POST',
  path: '/api/v1/contact-fields',
  summary: 'Define a custom contact field',
  description:
    'Contacts then hold values of it in `custom_fields.<key>`, checked against `data_type` (default `text`). `key` and `data_type` never change. ' +
    'A key the tenant already has is a 409; a key that breaks the pattern or names a built-in member (`email`, `company`, ...) is a 422. ' +
    'Listing items create `text` fields themselves for members they do not know.',
  tags,
  body: FieldCreateBody,
  status: 201,
  errors: [409],
  response: DataEnvelope(ContactFieldSchema),
  handler: async ({ body, em }) => {
    const problems: FieldErrors = {};
    const keyProblem = fieldKeyProblem(body.key);
    if (keyProblem) problems.key = [keyProblem];
    const name = body.name.trim();
    if (name === '') problems.name = ['must not be empty'];
    if (Object.keys(problems).length > 0) throw new ValidationError(problems);
    if (await em.count(ContactField, { key: body.key })) throw duplicateKey(body.key);
    const field = em.create(ContactField, {
      key: body.key,
      name,
      dataType: (body.data_type ?? 'text') as ContactFieldType,
      description: body.description ?? '',
    });
    try {
      await em.flush();
    } catch (error) {
      if (isKeyViolation(error)) throw duplicateKey(body.key);
      throw error;
    }
    return { data: contactFieldJson(field) };
  },
});

const listFields = listRoute({
  path: '/api/v1/contact-fields',
  summary: 'List the custom contact fields, by key',
  tags,
  query: PageQuery(),
  item: ContactFieldSchema,
  page: async ({ query, em }) => {
    const [fields, total] = await em.findAndCount(ContactField, {}, { orderBy: { key: 'asc' }, ...pageWindow(query) });
    return [fields.map(contactFieldJson), total];
  },
});

const readField = readRoute({
  path: '/api/v1/contact-fields/:key',
  summary: 'Read a custom contact field',
  tags,
  params: FieldParams,
  resource: ContactFieldSchema,
  read: async ({ params, em }) => contactFieldJson(await findField(em, params.key)),
});

const changeField = defineRoute({
  method: 'PATCH',
  path: '/api/v1/contact-fields/:key',
  summary: 'Rename a custom contact field or change its description',
  description:
    '`key` and `data_type` are immutable: they may be sent back as read, but another value is a 422 (define a new field instead). ' +
    'Contacts’ values are untouched.',
  tags,
  params: FieldParams,
  body: FieldPatchBody,
  errors: [404],
  response: DataEnvelope(ContactFieldSchema),
  handler: async ({ params, body, em }) => {
    const field = await findField(em, params.key);
    const problems: FieldErrors = {};
    if (body.key !== undefined && body.key !== field.key) problems.key = ['is immutable: a field keeps its key (define a new field instead)'];
    if (body.data_type !== undefined && body.data_type !== field.dataType) problems.data_type = ['is immutable: a field keeps its type (define a new field instead)'];
    const name = body.name?.trim();
    if (name === '') problems.name = ['must not be empty'];
    if (Object.keys(problems).length > 0) throw new ValidationError(problems);
    if (name !== undefined) field.name = name;
    if (body.description !== undefined) field.description = body.description;
    await em.flush();
    return { data: contactFieldJson(field) };
  },
});

const deleteField = deleteRoute({
  path: '/api/v1/contact-fields/:key',
  summary: 'Delete a custom contact field and its values',
  description: 'Removes the definition and the key from every contact’s `custom_fields`, in one statement.',
  tags,
  params: FieldParams,
  message: 'Contact field deleted',
  remove: async ({ params, em, tenant }) => {
    const field = await findField(em, params.key);
    await run(
      em,
      'with gone as (delete from contact_fields where tenant_uuid = ? and key = ? returning key) ' +
        'update contacts c set custom_fields = c.custom_fields - gone.key from gone where c.tenant_uuid = ? and jsonb_exists(c.custom_fields, gone.key)',
      [tenant.uuid, field.key, tenant.uuid],
    );
  },
});

/** Custom contact fields: `/api/v1/contact-fields`, addressed by their key. */
export const contactFieldRoutes: readonly AnyRoute[] = [createField, listFields, readField, changeField, deleteField];
