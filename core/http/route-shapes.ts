import type { TSchema } from '@sinclair/typebox';
import type { HandlerContext, RouteDefinition, StaticOr } from './route';
import { DataEnvelope, DeletedEnvelope, ListEnvelope, deleted, pageOf, type PageRequest } from './schemas';

/**
 * The three route shapes most resources repeat (a page of a list, one read by its key,
 * a delete), so a route file lists what differs: the path, its docs and the one call
 * that does the work. Routes that answer otherwise are written with `defineRoute`.
 */

/** Any route, as a plugin's route list holds it. */
export type AnyRoute = RouteDefinition<any, any, any>;

/** What a shaped route takes from `RouteDefinition`: everything but its method, body, response and handler. */
type RouteHead<PS extends TSchema | undefined, QS extends TSchema | undefined> = Omit<RouteDefinition<PS, QS, undefined>, 'method' | 'body' | 'response' | 'handler'>;
type Context<PS, QS> = HandlerContext<StaticOr<PS, {}>, StaticOr<QS, {}>, undefined>;

/** `GET` a page of a list: `page` answers the page's items and the total, as `findAndCount` does. */
export function listRoute<PS extends TSchema | undefined = undefined, QS extends TSchema = TSchema>(
  route: RouteHead<PS, QS> & { query: QS; item: TSchema; page(context: Context<PS, QS>): Promise<readonly [unknown[], number]> },
): RouteDefinition<PS, QS, undefined> {
  const { item, page, ...head } = route;
  return {
    ...head,
    method: 'GET',
    response: ListEnvelope(item),
    handler: async (context) => {
      const [items, total] = await page(context);
      return pageOf(items, total, context.query as PageRequest);
    },
  };
}

/** `GET` one resource as `{data}`; `read` throws the NotFoundError (404 unless `errors` says more). */
export function readRoute<PS extends TSchema | undefined, QS extends TSchema | undefined = undefined>(
  route: RouteHead<PS, QS> & { resource: TSchema; read(context: Context<PS, QS>): unknown },
): RouteDefinition<PS, QS, undefined> {
  const { resource, read, ...head } = route;
  return { errors: [404], ...head, method: 'GET', response: DataEnvelope(resource), handler: async (context) => ({ data: await read(context) }) };
}

/** `DELETE` answering the deleted envelope with `message`; `remove` throws the NotFoundError (404 unless `errors` says more). */
export function deleteRoute<PS extends TSchema | undefined, QS extends TSchema | undefined = undefined>(
  route: RouteHead<PS, QS> & { message: string; remove(context: Context<PS, QS>): Promise<unknown> },
): RouteDefinition<PS, QS, undefined> {
  const { message, remove, ...head } = route;
  return {
    errors: [404],
    ...head,
    method: 'DELETE',
    response: DeletedEnvelope,
    handler: async (context) => {
      await remove(context);
      return deleted(message);
    },
  };
}
