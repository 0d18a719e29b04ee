import { configRef, coreServices, createServiceFactory, createServiceRef, definePlugin, defineRoute, Type } from '../../../core';
import { startTestKernel } from '../../../core/testing';

describe('kernel lifecycle', () => {
  it('initialises plugins in dependency order, hands them typed deps and runs start/stop hooks in order and reverse', async () => {
    const events: string[] = [];
    const greeterRef = createServiceRef<{ greet(name: string): string }>('test.greeter');
    const baseConfig = { greeting: { format: String, default: 'hello' } };
    const base = definePlugin({
      id: 'base',
      config: baseConfig,
      services: [createServiceFactory({ service: greeterRef, deps: { config: configRef(baseConfig) }, factory: ({ config }) => ({ greet: (n: string) => `${config.get('greeting')} ${n}` }) })],
      deps: { lifecycle: coreServices.lifecycle, logger: coreServices.logger },
      init({ lifecycle, logger }) {
        events.push(`init base (${lifecycle.role})`);
        logger.info('base ready');
        lifecycle.onStart(() => void events.push('start base'));
        lifecycle.onStop(() => void events.push('stop base'));
      },
    });
    const top = definePlugin({
      id: 'top',
      dependsOn: ['base'],
      deps: { greeter: greeterRef, lifecycle: coreServices.lifecycle, http: coreServices.http },
      init({ greeter, lifecycle, http }) {
        events.push(`init top: ${greeter.greet('world')}`);
        lifecycle.onStart(() => void events.push('start top'));
        lifecycle.onStop(() => void events.push('stop top'));
        http.route(defineRoute({ method: 'GET', path: '/api/v1/greeting', summary: 'Greet', response: Type.Object({ data: Type.String() }), handler: () => ({ data: greeter.greet('api') }) }));
      },
    });

    // Given in the wrong order on purpose: the kernel orders by dependsOn.
    const kit = await startTestKernel({ plugins: [top, base], config: { base: { greeting: 'hi' } } });
    expect(events).toEqual(['init base (start)', 'init top: hi world', 'start base', 'start top']);
    await kit.api.get('/api/v1/greeting').expect(200, { data: 'hi api' });
    expect(kit.logs.find((line) => line.message === 'base ready')).toMatchObject({ plugin: 'base' });
    await kit.stop();
    expect(events.slice(4)).toEqual(['stop top', 'stop base']);
  });

  it('builds a service once per kernel, shared by its own plugin (init and factories) and the plugins that depend on it', async () => {
    const built: object[] = [];
    const storeRef = createServiceRef<{ n: number }>('test.store');
    const viewRef = createServiceRef<{ store: object }>('test.view');
    const seen: object[] = [];
    const owner = definePlugin({
      id: 'owner',
      services: [
        createServiceFactory({
          service: storeRef,
          deps: {},
          factory: () => {
            const store = { n: built.length };
            built.push(store);
            return store;
          },
        }),
        createServiceFactory({ service: viewRef, deps: { store: storeRef }, factory: ({ store }) => ({ store }) }),
      ],
      deps: { store: storeRef },
      init: ({ store }) => void seen.push(store),
    });
    const user = definePlugin({ id: 'user', dependsOn: ['owner'], deps: { view: viewRef, store: storeRef }, init: ({ view, store }) => void seen.push(view.store, store) });
    const first = await startTestKernel({ plugins: [owner, user] });
    await first.stop();
    expect(built).toHaveLength(1);
    expect(seen.every((store) => store === built[0])).toBe(true);
    const second = await startTestKernel({ plugins: [owner, user] });
    await second.stop();
    expect(built).toHaveLength(2);
    expect(seen).toHaveLength(6);
    expect(seen.slice(3).every((store) => store === built[1])).toBe(true);
  });

  it('refuses a service of a plugin that is not in dependsOn', async () => {
    const ref = createServiceRef<number>('test.number');
    const owner = definePlugin({ id: 'owner', services: [createServiceFactory({ service: ref, deps: {}, factory: () => 42 })] });
    const user = definePlugin({ id: 'user', deps: { n: ref }, init() {} });
    await expect(startTestKernel({ plugins: [owner, user] })).rejects.toThrow('plugin "user" uses service "test.number" of plugin "owner" without listing it in dependsOn');
  });

  it('refuses a service nobody provides', async () => {
    const user = definePlugin({ id: 'user', deps: { n: createServiceRef<number>('test.nobody') } });
    await expect(startTestKernel({ plugins: [user] })).rejects.toThrow('plugin "user" needs service "test.nobody" (deps.n), which no loaded plugin provides');
  });

  it('names the plugin whose init fails', async () => {
    const broken = definePlugin({
      id: 'broken',
      init() {
        throw new Error('no luck');
      },
    });
    await expect(startTestKernel({ plugins: [broken] })).rejects.toThrow(/plugin "broken" failed to initialise: Error: no luck/);
  });

  it('refuses the same route from two plugins, naming both', async () => {
    const route = defineRoute({ method: 'GET', path: '/api/v1/things/:id', params: Type.Object({ id: Type.String() }), summary: 'x', handler: () => ({}) });
    const other = defineRoute({ method: 'GET', path: '/api/v1/things/:uuid', params: Type.Object({ uuid: Type.String() }), summary: 'y', handler: () => ({}) });
    const a = definePlugin({ id: 'a', deps: { http: coreServices.http }, init: ({ http }) => http.route(route) });
    const b = definePlugin({ id: 'b', deps: { http: coreServices.http }, init: ({ http }) => http.route(other) });
    await expect(startTestKernel({ plugins: [a, b] })).rejects.toThrow('route GET /api/v1/things/:uuid is registered twice (plugins "a" and "b")');
  });

  it('refuses a route whose path parameters have no schema', async () => {
    const a = definePlugin({
      id: 'a',
      deps: { http: coreServices.http },
      init: ({ http }) => http.route({ method: 'GET', path: '/api/v1/things/:id', summary: 'x', handler: () => ({}) }),
    });
    await expect(startTestKernel({ plugins: [a] })).rejects.toThrow('has no params schema for: id');
  });

  it('drains in-flight requests on stop: a slow request still gets its answer, new connections are refused', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    const slow = definePlugin({
      id: 'slow',
      deps: { http: coreServices.http },
      init: ({ http }) =>
        http.route({
          method: 'GET',
          path: '/api/v1/slow',
          summary: 'Answers when released',
          handler: async () => {
            entered();
            await gate;
            return { data: 'done' };
          },
        }),
    });
    const kit = await startTestKernel({ plugins: [slow] });
    const inFlight = kit.api.get('/api/v1/slow').then((res) => res);
    await started;
    const stopping = kit.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(fetch(`${kit.url}/healthz`)).rejects.toThrow();
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: 'done' });
    await stopping;
  });

  it('a worker process does not listen for HTTP', async () => {
    const kit = await startTestKernel({ role: 'worker' });
    expect(kit.url).toBe('');
    expect(() => kit.kernel.url).toThrow('not listening');
    await kit.stop();
  });
});

describe('reserved paths', () => {
  it('refuses a plugin route on a path the kernel serves itself', async () => {
    const sneaky = definePlugin({
      id: 'sneaky',
      deps: { http: coreServices.http },
      init: ({ http }) => http.route({ method: 'GET', path: '/docs/extra', summary: 'x', handler: () => ({}) }),
    });
    await expect(startTestKernel({ plugins: [sneaky] })).rejects.toThrow('may not add route GET /docs/extra: the kernel serves that path');
  });
});
