import { DataEnvelope, DeletedEnvelope, ListEnvelope, NotFoundError, PageQuery, Type, deleteRoute, listRoute, readRoute } from '../../../core';

const Item = Type.Object({ name: Type.String() });
const Params = Type.Object({ uuid: Type.String() });
/** Only what the shaped handlers read; the rest of a request's context is not theirs. */
const context = (members: object) => members as any;

describe('route shapes', () => {
  it('listRoute answers the list envelope of the page it is given', async () => {
    const route = listRoute({ path: '/api/v1/items', summary: 'List items', query: PageQuery(), item: Item, page: async () => [[{ name: 'c' }], 21] });
    expect(route.method).toBe('GET');
    expect(route.response).toEqual(ListEnvelope(Item));
    const answer: any = await route.handler(context({ query: { page: 3, per_page: 10 } }));
    expect(answer.data.items).toEqual([{ name: 'c' }]);
    expect(answer.data.pagination).toMatchObject({ current_page: 3, per_page: 10, total: 21, last_page: 3, from: 21, to: 21, has_more: false });
  });

  it('readRoute answers {data} and declares 404 unless told otherwise', async () => {
    const route = readRoute({ path: '/api/v1/items/:uuid', summary: 'Read an item', params: Params, resource: Item, read: ({ params }) => ({ name: params.uuid }) });
    expect(route.method).toBe('GET');
    expect(route.errors).toEqual([404]);
    expect(route.response).toEqual(DataEnvelope(Item));
    await expect(route.handler(context({ params: { uuid: 'x' } }))).resolves.toEqual({ data: { name: 'x' } });
    const missing = readRoute({ path: '/api/v1/items/:uuid', summary: 'Read', params: Params, errors: [404, 409], resource: Item, read: () => Promise.reject(new NotFoundError('Item not found')) });
    expect(missing.errors).toEqual([404, 409]);
    await expect(missing.handler(context({ params: { uuid: 'x' } }))).rejects.toThrow('Item not found');
  });

  it('deleteRoute answers the deleted envelope once `remove` is done, and nothing when it throws', async () => {
    const removed: string[] = [];
    const route = deleteRoute({
      path: '/api/v1/items/:uuid',
      summary: 'Delete an item',
      params: Params,
      message: 'Item deleted',
      remove: async ({ params }) => {
        if (params.uuid === 'unknown') throw new NotFoundError('Item not found');
        removed.push(params.uuid);
      },
    });
    expect(route.method).toBe('DELETE');
    expect(route.errors).toEqual([404]);
    expect(route.response).toBe(DeletedEnvelope);
    await expect(route.handler(context({ params: { uuid: 'a' } }))).resolves.toEqual({ success: true, message: 'Item deleted', data: { deleted: true } });
    await expect(route.handler(context({ params: { uuid: 'unknown' } }))).rejects.toThrow('Item not found');
    expect(removed).toEqual(['a']);
  });
});
