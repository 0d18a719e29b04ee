import { Type } from '@sinclair/typebox';
import type { MikroORM } from '@mikro-orm/postgresql';
import { NotFoundError } from '../http/http-errors';
import type { RouteDefinition } from '../http/route';
import { DataEnvelope, DeletedEnvelope, ListEnvelope, PageQuery, Timestamp, Uuid, deleted, pageOf, pageWindow } from '../http/schemas';
import { DeadLetter } from './bus-entities';
import type { OutboxStore } from './outbox-store';

const DeadLetterSchema = Type.Object({
  id: Uuid(),
  message_id: Uuid(),
  consumer: Type.String(),
  topic: Type.String(),
  payload: Type.Unknown(),
  headers: Type.Record(Type.String(), Type.String()),
  tenant_uuid: Type.Union([Uuid(), Type.Null()]),
  attempts: Type.Integer(),
  error: Type.String({ description: 'The last error, with its stack (the admin API is for operators)' }),
  created_at: Timestamp(),
});

const toJson = (d: DeadLetter) => ({
  id: d.id,
  message_id: d.messageId,
  consumer: d.consumer,
  topic: d.topic,
  payload: d.payload,
  headers: d.headers,
  tenant_uuid: d.tenantUuid,
  attempts: d.attempts,
  error: d.error,
  created_at: d.createdAt.toISOString(),
});

const IdParams = Type.Object({ id: Uuid() });

/** Operators list, replay and discard messages that ran out of attempts. */
export function deadLetterRoutes(orm: MikroORM, outbox: OutboxStore): RouteDefinition<any, any, any>[] {
  return [
    {
      method: 'GET',
      path: '/admin/v1/dead-letters',
      summary: 'List dead-lettered messages, newest first',
      tags: ['admin'],
      auth: 'admin',
      query: PageQuery({ consumer: Type.Optional(Type.String()), topic: Type.Optional(Type.String()) }),
      response: ListEnvelope(DeadLetterSchema),
      handler: async ({ query }: any) => {
        const where = { ...(query.consumer ? { consumer: query.consumer } : {}), ...(query.topic ? { topic: query.topic } : {}) };
        const [rows, total] = await orm.em
          .fork()
          .findAndCount(DeadLetter, where, { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageWindow(query) });
        return pageOf(rows.map(toJson), total, query);
      },
    },
    {
      method: 'POST',
      path: '/admin/v1/dead-letters/:id/replay',
      summary: 'Replay a dead-lettered message to its consumer',
      description: 'Puts the message back in the outbox for its consumer alone, with a fresh set of attempts, and removes the dead letter.',
      tags: ['admin'],
      auth: 'admin',
      params: IdParams,
      errors: [404],
      response: DataEnvelope(Type.Object({ message_id: Uuid(), consumer: Type.String() })),
      handler: async ({ params, em }: any) => {
        const letter = await em.findOne(DeadLetter, { id: params.id });
        if (!letter) throw new NotFoundError('Dead letter not found');
        await outbox.insert(em, {
          messageId: letter.messageId,
          topic: letter.topic,
          payload: letter.payload,
          headers: letter.headers,
          tenantUuid: letter.tenantUuid,
          consumer: letter.consumer,
          attempt: 1,
        });
        em.remove(letter);
        return { data: { message_id: letter.messageId, consumer: letter.consumer } };
      },
    },
    {
      method: 'DELETE',
      path: '/admin/v1/dead-letters/:id',
      summary: 'Discard a dead-lettered message',
      tags: ['admin'],
      auth: 'admin',
      params: IdParams,
      errors: [404],
      response: DeletedEnvelope,
      handler: async ({ params, em }: any) => {
        const letter = await em.findOne(DeadLetter, { id: params.id });
        if (!letter) throw new NotFoundError('Dead letter not found');
        em.remove(letter);
        return deleted('Dead letter discarded');
      },
    },
  ];
}
