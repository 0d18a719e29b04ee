import { MalformedPathError, RouteTable, routePathProblem } from '../../../core/http/route-table';
import { RouteRegistry } from '../../../core/http/route-registry';
import { BootError } from '../../../core/errors/boot-error';

function table(): RouteTable<string> {
  const routes = new RouteTable<string>();
  routes.add('GET', '/api/v1/data/:uuid', 'table');
  routes.add('GET', '/api/v1/data/imports/:uuid', 'import');
  routes.add('GET', '/api/v1/data/:uuid/fields', 'fields');
  routes.add('POST', '/api/v1/data/:uuid/fields', 'add field');
  routes.add('GET', '/api/v1/data/:table_uuid/records/:uuid', 'record');
  routes.add('GET', '/api/v1/data/tables', 'tables');
  routes.add('GET', '/healthz', 'health');
  return routes;
}

describe('RouteTable', () => {
  it('finds a route by method and path, with its parameters', () => {
    expect(table().match('GET', '/api/v1/data/abc')).toEqual({ value: 'table', params: { uuid: 'abc' } });
    expect(table().match('POST', '/api/v1/data/abc/fields')).toEqual({ value: 'add field', params: { uuid: 'abc' } });
    expect(table().match('GET', '/api/v1/data/t1/records/r1')).toEqual({ value: 'record', params: { table_uuid: 't1', uuid: 'r1' } });
  });

  it('tries a static segment before a parameter, whatever the order they were added in, and backtracks', () => {
    expect(table().match('GET', '/api/v1/data/tables')?.value).toBe('tables');
    expect(table().match('GET', '/api/v1/data/imports/x')).toEqual({ value: 'import', params: { uuid: 'x' } });
    // "imports" as a table id: the static branch has no /fields, so the parameter branch answers.
    expect(table().match('GET', '/api/v1/data/imports/fields')?.value).toBe('import');
    expect(table().match('POST', '/api/v1/data/imports/fields')).toEqual({ value: 'add field', params: { uuid: 'imports' } });
  });

  it("keeps express's defaults: static segments in any case, one trailing slash, HEAD runs GET", () => {
    expect(table().match('GET', '/API/v1/Data/abc')).toEqual({ value: 'table', params: { uuid: 'abc' } });
    expect(table().match('GET', '/api/v1/data/AbC/')).toEqual({ value: 'table', params: { uuid: 'AbC' } });
    expect(table().match('HEAD', '/healthz')?.value).toBe('health');
  });

  it('finds nothing for another method, an empty parameter, a longer or shorter path', () => {
    expect(table().match('DELETE', '/api/v1/data/abc')).toBeUndefined();
    expect(table().match('GET', '/api/v1/data//fields')).toBeUndefined();
    expect(table().match('GET', '/api/v1/data/abc/fields/more')).toBeUndefined();
    expect(table().match('GET', '/api/v1')).toBeUndefined();
    expect(table().match('GET', '/')).toBeUndefined();
  });

  it('percent-decodes parameters and refuses malformed encoding', () => {
    expect(table().match('GET', '/api/v1/data/a%20b')?.params).toEqual({ uuid: 'a b' });
    expect(() => table().match('GET', '/api/v1/data/%E0%A4%A')).toThrow(MalformedPathError);
  });

  it('lists the methods a path answers, for OPTIONS', () => {
    expect(table().methodsAt('/api/v1/data/abc/fields')).toEqual(['GET', 'HEAD', 'POST']);
    expect(table().methodsAt('/api/v1/nothing')).toEqual([]);
  });

  it('refuses a route added twice and path syntax it does not support', () => {
    const routes = table();
    expect(() => routes.add('GET', '/api/v1/data/:id', 'again')).toThrow(/added twice/);
    expect(() => routes.add('GET', '/files/*path', 'splat')).toThrow(/"\*path" is neither a static segment nor a :parameter/);
    expect(() => routes.add('GET', '/a/:x-y', 'odd')).toThrow(/":x-y" is neither/);
    expect(() => routes.add('GET', 'no-slash', 'relative')).toThrow(/must start with \//);
  });

  it('is what the route registry checks, so a plugin with a bad path fails boot by name', () => {
    expect(routePathProblem('/api/v1/notes/:uuid/')).toBeUndefined();
    expect(routePathProblem('/api/v1/notes{/:uuid}')).toMatch(/neither/);
    const registry = new RouteRegistry();
    const add = () => registry.add('probe', { method: 'GET', path: '/api/v1/files/*rest', summary: 'x', handler: () => undefined } as never);
    expect(add).toThrow(BootError);
    expect(add).toThrow(/plugin "probe": route path \/api\/v1\/files\/\*rest/);
  });
});
