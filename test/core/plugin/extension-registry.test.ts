import { createExtensionPoint, definePlugin } from '../../../core';
import { collectExtensions } from '../../../core/plugin/extension-registry';

const apps = createExtensionPoint<{ uid: string }>({ id: 'test.apps', keyOf: (a) => a.uid });
const llm = createExtensionPoint<{ name: string }>({ id: 'test.llm', single: true });
import { loadPlugins } from '../../../core/plugin/plugin-source';

/** As the kernel loads plugins given as code: named, in dependency order. */
const loaded = (...plugins: ReturnType<typeof definePlugin>[]) => loadPlugins(plugins);

describe('collectExtensions', () => {
  it('gives the owner every contribution in plugin order, whatever the order of definition', () => {
    const registry = collectExtensions(
      loaded(
        definePlugin({ id: 'owner', provides: [apps, llm] }),
        definePlugin({ id: 'one', contributes: [apps.add({ uid: 'crm' }), llm.add({ name: 'openai' })] }),
        definePlugin({ id: 'two', contributes: [apps.add({ uid: 'calendar' })] }),
      ),
    );
    expect(registry.items(apps)).toEqual([{ uid: 'crm' }, { uid: 'calendar' }]);
    expect(registry.get(llm)).toEqual({ name: 'openai' });
  });

  it('leaves an unfilled single slot undefined', () => {
    expect(collectExtensions(loaded(definePlugin({ id: 'owner', provides: [llm] }))).get(llm)).toBeUndefined();
  });

  it('refuses a point provided by two plugins', () => {
    expect(() => collectExtensions(loaded(definePlugin({ id: 'a', provides: [apps] }), definePlugin({ id: 'b', provides: [apps] })))).toThrow(
      'extension point "test.apps" is provided by both "a" and "b"',
    );
  });

  it('refuses a contribution to a point nobody provides', () => {
    expect(() => collectExtensions(loaded(definePlugin({ id: 'a', contributes: [apps.add({ uid: 'x' })] })))).toThrow(
      'plugin "a" contributes to extension point "test.apps", which no loaded plugin provides',
    );
  });

  it('refuses a single slot set twice, naming both plugins', () => {
    expect(() =>
      collectExtensions(
        loaded(
          definePlugin({ id: 'owner', provides: [llm] }),
          definePlugin({ id: 'a', contributes: [llm.add({ name: 'x' })] }),
          definePlugin({ id: 'b', contributes: [llm.add({ name: 'y' })] }),
        ),
      ),
    ).toThrow('extension point "test.llm" takes one implementation; it is set by both "a" and "b"');
  });

  it('refuses two items with one key', () => {
    expect(() =>
      collectExtensions(
        loaded(
          definePlugin({ id: 'owner', provides: [apps] }),
          definePlugin({ id: 'a', contributes: [apps.add({ uid: 'crm' })] }),
          definePlugin({ id: 'b', contributes: [apps.add({ uid: 'crm' })] }),
        ),
      ),
    ).toThrow('extension point "test.apps" has "crm" twice (from "a" and "b")');
  });
});
