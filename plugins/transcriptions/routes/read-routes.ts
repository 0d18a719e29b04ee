import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import {
  DeletedEnvelope,
  PageQuery,
  Reply,
  ResourceId,
  SuccessEnvelope,
  Timestamp,
  Type,
  defineRoute,
  deleted,
  findByUuid,
  listRoute,
  pageWindow,
} from '../../../core';
import { TRANSCRIPTION_STATUSES, Transcription } from '../entities';
import type { TranscriptionDeps } from '../job/deps';
import { TranscriptionSchema, transcriptionViews } from '../view';
import { TranscriptionNotFoundError } from './not-found';
import { StoredFileNotFoundError } from '../../storage';

const tags = ['transcriptions'];
const Params = Type.Object({ uuid: ResourceId('transcriptions.transcription') });

const ListQuery = PageQuery({
  status: Type.Optional(Type.Union(TRANSCRIPTION_STATUSES.map((status) => Type.Literal(status)))),
  agent_uuid: Type.Optional(ResourceId('agents.agent', 'Transcriptions where this agent is `agent_uuid`, `qa_agent_uuid` or `coaching_agent_uuid`')),
  reference_id: Type.Optional(Type.String({ maxLength: 255 })),
  from: Type.Optional(Timestamp()),
  to: Type.Optional(Timestamp()),
});

async function found(em: EntityManager, uuid: string): Promise<Transcription> {
  const row = await findByUuid(em, Transcription, uuid);
  if (!row) throw new TranscriptionNotFoundError(uuid);
  return row;
}

export function readRoutes(deps: TranscriptionDeps) {
  const views = transcriptionViews(deps.storage, deps.settings.urlTtlSeconds);
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/transcriptions/:uuid',
      summary: 'A transcription: its state, and its result once completed',
      description:
        'For polling: `status` goes `queued -> processing -> completed | failed`; `transcription_result` is filled once completed, `error_message` once failed. ' +
        'An unknown uuid is a 404 `{success: false, message: "Transcription not found", errors: [...]}`.',
      tags,
      params: Params,
      errors: [404],
      response: SuccessEnvelope(TranscriptionSchema),
      handler: async ({ params, em }) => ({ success: true, message: 'Transcription retrieved', data: await views.one(await found(em, params.uuid)) }),
    }),
    listRoute({
      path: '/api/v1/transcriptions',
      summary: 'List transcriptions, newest first',
      description: '`from` (inclusive) and `to` (exclusive) bound `created_at`.',
      tags,
      query: ListQuery,
      item: TranscriptionSchema,
      page: async ({ query, em }) => {
        const where: FilterQuery<Transcription> = {};
        if (query.status) where.status = query.status;
        if (query.reference_id) where.referenceId = query.reference_id;
        if (query.agent_uuid) where.$or = [{ agentUuid: query.agent_uuid }, { qaAgentUuid: query.agent_uuid }, { coachingAgentUuid: query.agent_uuid }];
        if (query.from || query.to) where.createdAt = { ...(query.from ? { $gte: new Date(query.from) } : {}), ...(query.to ? { $lt: new Date(query.to) } : {}) };
        const [rows, total] = await em.findAndCount(Transcription, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
        return [await views.many(rows), total] as const;
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/transcriptions/:uuid',
      summary: 'Delete a transcription and its stored audio',
      description: 'The conversation it became stays (it is history, which evaluations refer to). A job still running for it stops at its next step.',
      tags,
      params: Params,
      errors: [404],
      transactional: false,
      response: DeletedEnvelope,
      handler: async ({ params, em }) => {
        const key = await em.transactional(async (tx) => {
          const row = await found(tx, params.uuid);
          tx.remove(row);
          await tx.flush();
          return row.storageKey;
        });
        // After the row is gone, outside the transaction: the storage may be another system.
        await deps.storage.remove(key).catch((error: unknown) => deps.logger.warn('stored audio of a deleted transcription not removed', { key, error: String(error) }));
        return deleted('Transcription deleted');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/transcriptions/:uuid/audio',
      summary: 'The stored audio of a transcription',
      description:
        'The file as it was taken, with its media type. With a storage that signs URLs (S3), a 302 to a time-limited signed URL instead.',
      tags,
      params: Params,
      errors: [404],
      response: Type.Unknown({ description: 'The audio: audio/wav, audio/mpeg, audio/mp4, audio/ogg or audio/webm' }),
      handler: async ({ params, em }) => {
        const row = await found(em, params.uuid);
        const signed = await deps.storage.signedUrl(row.storageKey, deps.settings.urlTtlSeconds);
        if (signed) return new Reply(302, Buffer.alloc(0), { location: signed });
        try {
          const file = await deps.storage.read(row.storageKey);
          const chunks: Buffer[] = [];
          for await (const chunk of file.body) chunks.push(Buffer.from(chunk as Buffer));
          return new Reply(200, Buffer.concat(chunks), { 'content-type': row.mimeType, 'content-disposition': `inline; filename="${row.uuid}.${row.format}"` });
        } catch (error) {
          if (error instanceof StoredFileNotFoundError) throw new TranscriptionNotFoundError(params.uuid);
          throw error;
        }
      },
    }),
  ];
}
