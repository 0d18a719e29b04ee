import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  PageQuery,
  Type,
  ValidationError,
  defineRoute,
  deleteRoute,
  listRoute,
  pageWindow,
  readRoute,
  type AnyRoute,
} from '../../../core';
import { ContactAnalyzer, ContactField } from '../entities';
import { analyzerIdShapeProblem } from './analyzer-targets';
import { ContactAnalyzerSchema, analyzerJson } from './analyzer-view';

const tags = ['contacts'];
export const ANALYZER_NOT_FOUND = 'Contact analyzer not found';
const DUPLICATE = 'A contact analyzer with this analyzer_id already exists';

const { properties: member } = ContactAnalyzerSchema;

/** The analyzer's id in the path; its kind lets the cross-tenant sweep reach it (ids are keys, not uuids). */
const AnalyzerParams = Type.Object({
  analyzer_id: Type.String({ minLength: 1, maxLength: 200, 'x-resource': 'contacts.analyzer', description: 'The analyzer’s `analyzer_id`' }),
});

const AnalyzerCreate = Type.Object(
  {
    analyzer_id: member.analyzer_id,
    name: Type.Optional(member.name),
    instruction: member.instruction,
    enabled: Type.Optional(member.enabled),
    auto_approve: Type.Optional(member.auto_approve),
    field: member.field,
    created_at: member.created_at,
    updated_at: member.updated_at,
  },
  {
    additionalProperties: false,
    examples: [{ analyzer_id: 'b_company', name: 'Company', instruction: 'The company the customer says they work for.' }],
  },
);

const AnalyzerUpdate = Type.Object(
  {
    analyzer_id: Type.Optional({ ...member.analyzer_id, description: 'Immutable: accepted only when it is the analyzer’s own (so a client can send back what it read)' }),
    name: Type.Optional(member.name),
    instruction: Type.Optional(member.instruction),
    enabled: Type.Optional(member.enabled),
    auto_approve: Type.Optional(member.auto_approve),
    field: member.field,
    created_at: member.created_at,
    updated_at: member.updated_at,
  },
  { additionalProperties: false, examples: [{ enabled: false }] },
);

/** The 422 of an id that names nothing an analyzer can write. */
async function checkAnalyzerId(em: EntityManager, analyzerId: string): Promise<void> {
  const problem = analyzerIdShapeProblem(analyzerId);
  if (problem) throw ValidationError.field('analyzer_id', problem);
  if (analyzerId.startsWith('f_') && !(await em.count(ContactField, { key: analyzerId.slice(2) }))) {
    throw ValidationError.field('analyzer_id', `no contact field has the key "${analyzerId.slice(2)}"`);
  }
}

const findAnalyzer = async (em: EntityManager, analyzerId: string) => {
  const analyzer = await em.findOne(ContactAnalyzer, { analyzerId });
  if (!analyzer) throw new NotFoundError(ANALYZER_NOT_FOUND);
  return analyzer;
};

const createAnalyzer = defineRoute({
  method: 'POST',
  path: '/api/v1/contact-analyzers',
  summary: 'Create a contact analyzer',
  description:
    'After each closed session of a contact, the enabled analyzers ask the model (one call for all of them) what their `instruction` says, ' +
    'and each answer that would change the contact becomes a contact approval. `analyzer_id` says what it writes ' +
    '(`b_company`, `f_<custom field key>`, `p_<stage key>`); a wrong id is a 422 at `analyzer_id`, one already used a 409.',
  tags,
  body: AnalyzerCreate,
  status: 201,
  errors: [409],
  response: DataEnvelope(ContactAnalyzerSchema),
  handler: async ({ body, em }) => {
    await checkAnalyzerId(em, body.analyzer_id);
    if (await em.count(ContactAnalyzer, { analyzerId: body.analyzer_id })) throw new ConflictError(DUPLICATE);
    const analyzer = em.create(ContactAnalyzer, {
      analyzerId: body.analyzer_id,
      name: body.name ?? '',
      instruction: body.instruction,
      enabled: body.enabled ?? true,
      autoApprove: body.auto_approve ?? false,
    });
    try {
      await em.flush();
    } catch (error) {
      // Two requests creating the same id at once: the unique constraint decides.
      if (error instanceof UniqueConstraintViolationException) throw new ConflictError(DUPLICATE);
      throw error;
    }
    return { data: analyzerJson(analyzer) };
  },
});

const listAnalyzers = listRoute({
  path: '/api/v1/contact-analyzers',
  summary: 'List contact analyzers',
  description: 'In creation order, the order the model is asked in. `enabled` filters.',
  tags,
  query: PageQuery({ enabled: Type.Optional(Type.Boolean({ description: 'Only the enabled (true) or disabled (false) ones' })) }),
  item: ContactAnalyzerSchema,
  page: async ({ query, em }) => {
    const where = query.enabled === undefined ? {} : { enabled: query.enabled };
    const [rows, total] = await em.findAndCount(ContactAnalyzer, where, { orderBy: { createdAt: 'asc', uuid: 'asc' }, ...pageWindow(query) });
    return [rows.map(analyzerJson), total];
  },
});

const readAnalyzer = readRoute({
  path: '/api/v1/contact-analyzers/:analyzer_id',
  summary: 'Read a contact analyzer',
  tags,
  params: AnalyzerParams,
  resource: ContactAnalyzerSchema,
  read: async ({ params, em }) => analyzerJson(await findAnalyzer(em, params.analyzer_id)),
});

const changeAnalyzer = defineRoute({
  method: 'PATCH',
  path: '/api/v1/contact-analyzers/:analyzer_id',
  summary: 'Change a contact analyzer',
  description: 'Changes the members sent. `analyzer_id` cannot change (422 when another is sent): delete the analyzer and create another.',
  tags,
  params: AnalyzerParams,
  body: AnalyzerUpdate,
  errors: [404],
  response: DataEnvelope(ContactAnalyzerSchema),
  handler: async ({ params, body, em }) => {
    const analyzer = await findAnalyzer(em, params.analyzer_id);
    if (body.analyzer_id !== undefined && body.analyzer_id !== analyzer.analyzerId) throw ValidationError.field('analyzer_id', 'cannot be changed');
    if (body.name !== undefined) analyzer.name = body.name;
    if (body.instruction !== undefined) analyzer.instruction = body.instruction;
    if (body.enabled !== undefined) analyzer.enabled = body.enabled;
    if (body.auto_approve !== undefined) analyzer.autoApprove = body.auto_approve;
    await em.flush();
    return { data: analyzerJson(analyzer) };
  },
});

const deleteAnalyzer = deleteRoute({
  path: '/api/v1/contact-analyzers/:analyzer_id',
  summary: 'Delete a contact analyzer',
  description: 'Its approvals stay, pending ones included: they can still be approved or rejected.',
  tags,
  params: AnalyzerParams,
  message: 'Contact analyzer deleted',
  remove: async ({ params, em }) => em.remove(await findAnalyzer(em, params.analyzer_id)),
});

/** Contact analyzers: create, list, read, change, delete. */
export const analyzerRoutes: readonly AnyRoute[] = [createAnalyzer, listAnalyzers, readAnalyzer, changeAnalyzer, deleteAnalyzer];
