import { BootError, Type, createServiceRef, type BusService } from '../../../../core';
import {
  contributeFlowApp,
  defineAction,
  defineFlowApp,
  defineFlowAppExtension,
  defineOptions,
  defineTrigger,
  flowAppDepsRef,
  flowApps,
  flowAppExtensions,
  type FlowAppDefinition,
  type FlowAppExtension,
} from '../../../../plugins/flows';
import { flowAppDepsRegistry } from '../../../../plugins/flows/app/app-deps';
import { FlowCatalog } from '../../../../plugins/flows/app/flow-catalog';
import { POLL_TOPIC } from '../../../../plugins/flows/engine/poll-message';

const greeterRef = createServiceRef<{ greet(name: string): string }>('test.greeter');
const counterRef = createServiceRef<{ next(): number }>('test.counter');
const greeterDeps = { greeter: greeterRef };
const input = Type.Object({ name: Type.String() });

const hello = defineAction({
  deps: greeterDeps,
  key: 'hello',
  name: 'Hello',
  description: '',
  input,
  outputSample: '',
  run: ({ input, deps }) => deps.greeter.greet(input.name),
});
const names = defineOptions({ deps: greeterDeps, kind: 'names', params: Type.Object({}), load: ({ deps }) => ({ options: [{ label: deps.greeter.greet('list'), value: 'x' }] }) });
const greeted = defineTrigger({
  deps: greeterDeps,
  key: 'greeted',
  name: 'Greeted',
  description: '',
  input,
  outputSample: {},
  event: { topic: 'test.greeted', matches: (config, message, { deps }) => deps.greeter.greet(config.name) === message.payload },
});

const app = (overrides: Partial<FlowAppDefinition<any>> = {}): FlowAppDefinition<any> => ({
  uid: 'greetings',
  name: 'Greetings',
  description: '',
  icon: 'https://example.com/greetings.svg',
  category: 'builtin',
  deps: greeterDeps,
  actions: [hello],
  options: [names],
  triggers: [greeted],
  ...overrides,
});

const greeter = { greet: (name: string) => `hello ${name}` };
const anything = <T>(value: Record<string, unknown>) => value as unknown as T;

describe('flow app deps', () => {
  it('reach the actions, option lists and triggers of the app, read when the code runs (after the catalog is built)', async () => {
    const registry = flowAppDepsRegistry();
    const greetings = app();
    const catalog = new FlowCatalog([greetings], [], registry);
    registry.provide(greetings, { greeter });

    expect(await catalog.action('greetings', 'hello')!.run(anything({ input: { name: 'Ada' } }))).toBe('hello Ada');
    expect(await catalog.options('greetings', 'names')!.load(anything({ params: {} }))).toEqual({ options: [{ label: 'hello list', value: 'x' }] });
    const matches = catalog.trigger('greetings', 'greeted')!.event!.matches;
    expect(await matches({ name: 'Ada' }, anything({ payload: 'hello Ada' }), anything({}))).toBe(true);
    expect(await matches({ name: 'Bob' }, anything({ payload: 'hello Ada' }), anything({}))).toBe(false);
  });

  it('an extension’s code gets the extension’s deps, the app’s code the app’s', async () => {
    const registry = flowAppDepsRegistry();
    const counted = defineAction({ deps: { counter: counterRef }, key: 'count', name: 'Count', description: '', input, outputSample: 0, run: ({ deps }) => deps.counter.next() });
    const greetings = app();
    const extension = defineFlowAppExtension({ app: 'greetings', by: 'counting', deps: { counter: counterRef }, actions: [counted] });
    const catalog = new FlowCatalog([greetings], [extension], registry);
    registry.provide(greetings, { greeter });
    registry.provide(extension, { counter: { next: () => 7 } });

    expect(await catalog.action('greetings', 'count')!.run(anything({}))).toBe(7);
    expect(await catalog.action('greetings', 'hello')!.run(anything({ input: { name: 'Ada' } }))).toBe('hello Ada');
  });

  it('refuses at boot code typed for deps its app (or extension) does not name, naming both', () => {
    const refusal = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        expect(error).toBeInstanceOf(BootError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal(() => new FlowCatalog([app({ deps: {} })]))).toBe(
      'flow app "greetings": trigger "greeted" is typed for deps.greeter ("test.greeter"), which the app does not name in its deps',
    );
    expect(refusal(() => new FlowCatalog([app({ deps: { greeter: counterRef }, triggers: [] })]))).toBe(
      'flow app "greetings": action "hello" is typed for deps.greeter ("test.greeter"), which the app does not name in its deps',
    );
    expect(refusal(() => new FlowCatalog([app({ deps: {}, actions: [], options: [], triggers: [] })], [{ app: 'greetings', by: 'counting', actions: [hello] }]))).toBe(
      'plugin "counting"\'s extension of flow app "greetings": action "hello" is typed for deps.greeter ("test.greeter"), which the extension does not name in its deps',
    );
  });

  it('refuses to start while deps were never provided, and code that runs without them says how to provide them', async () => {
    const catalog = new FlowCatalog([app()], [], flowAppDepsRegistry());
    expect(() => catalog.assertDepsProvided()).toThrow(BootError);
    expect(() => catalog.assertDepsProvided()).toThrow('flow app "greetings": deps named but never provided');
    await expect(async () => catalog.action('greetings', 'hello')!.run(anything({ input: { name: 'Ada' } }))).rejects.toThrow(
      'flow app "greetings" names deps its plugin never provided: contribute it with contributeFlowApp(...)',
    );
  });

  it('leaves the code of an app that names no deps as it is (no wrapper on the hot path)', () => {
    const plain = defineAction({ key: 'plain', name: 'Plain', description: '', input, outputSample: '', run: () => 'ok' });
    const catalog = new FlowCatalog([app({ deps: undefined, actions: [plain], options: [], triggers: [] })]);
    expect(catalog.action('greetings', 'plain')).toBe(plain);
    expect(() => catalog.assertDepsProvided()).not.toThrow();
  });

  it('contributeFlowApp: contributes the app, names its deps as the plugin’s, and hands them over in init', () => {
    const greetings = defineFlowApp(app());
    const members = contributeFlowApp(greetings);
    expect(members.contributes).toEqual([flowApps.add(greetings)]);
    expect(members.deps).toEqual({ greeter: greeterRef, contributedDeps: flowAppDepsRef });
    const registry = flowAppDepsRegistry();
    members.init({ greeter, contributedDeps: registry });
    expect(registry.of(greetings)).toEqual({ greeter });

    const extension: FlowAppExtension<any> = { app: 'greetings', by: 'counting', deps: { counter: counterRef } };
    expect(contributeFlowApp(extension).contributes).toEqual([flowAppExtensions.add(extension)]);
  });

  it('the registry refuses deps provided twice or incompletely', () => {
    const registry = flowAppDepsRegistry();
    const greetings = app();
    expect(() => registry.provide(greetings, {})).toThrow('flow app "greetings": deps greeter were not provided');
    registry.provide(greetings, { greeter });
    expect(() => registry.provide(greetings, { greeter })).toThrow('flow app "greetings": its deps were provided twice');
  });
});

describe('trigger sources', () => {
  const trigger = (members: Record<string, unknown>) => ({ key: 'watch', name: 'Watch', description: '', input, outputSample: {}, ...members });
  const event = { topic: 'test.watched', matches: () => true };
  const poll = (intervalSeconds: number) => ({ intervalSeconds, run: () => ({ events: [], cursor: null }) });
  const refused = (members: Record<string, unknown>) => () => new FlowCatalog([app({ deps: undefined, actions: [], options: [], triggers: [trigger(members)] })]);

  it('refuses a trigger with two ways to fire, an event without a topic, a poll interval that is not 1 s to a day', () => {
    expect(refused({ hook: { config: () => ({}) }, event })).toThrow('flow app "greetings": trigger "watch" declares hook and event: a trigger fires one way');
    expect(refused({ event, poll: poll(60) })).toThrow('declares event and poll');
    expect(refused({ event: { ...event, topic: ' ' } })).toThrow('trigger "watch" declares an event without a topic');
    for (const seconds of [0, 1.5, 86_401]) expect(refused({ poll: poll(seconds) })).toThrow(`polls every ${seconds} seconds`);
    expect(refused({ poll: poll(1) })).not.toThrow();
    expect(refused({ event })).not.toThrow();
  });

  it('a poll trigger’s deploy runs its own onDeploy, then publishes the first poll, due at once', async () => {
    const calls: string[] = [];
    const publish = jest.fn(async (topic: string) => {
      calls.push(`publish ${topic}`);
      return 'id';
    });
    const catalog = new FlowCatalog([app({ deps: undefined, actions: [], options: [], triggers: [trigger({ poll: poll(30), onDeploy: () => void calls.push('onDeploy') })] })]);
    const step = { flowUuid: 'f', stepUuid: 's', versionUuid: 'v1' };
    await catalog.trigger('greetings', 'watch')!.onDeploy!(anything({ step, bus: { publish } as unknown as BusService }));
    expect(calls).toEqual(['onDeploy', `publish ${POLL_TOPIC}`]);
    expect(publish).toHaveBeenCalledWith(POLL_TOPIC, { version_uuid: 'v1', app_uid: 'greetings', trigger_key: 'watch' }, { delay: 0, key: 'poll:v1' });
  });
});
