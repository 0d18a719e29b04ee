import { orderPlugins } from '../../../core/plugin/load-order';
import { BootError } from '../../../core/errors/boot-error';

const p = (id: string, dependsOn: string[] = []) => ({ id, dependsOn, origin: `/plugins/${id}` });

describe('orderPlugins', () => {
  it('puts every plugin after its dependencies and keeps discovery order otherwise', () => {
    const ordered = orderPlugins([p('flows', ['agents']), p('tables'), p('agents'), p('app-tables', ['flows', 'tables'])]);
    expect(ordered.map((x) => x.id)).toEqual(['agents', 'flows', 'tables', 'app-tables']);
  });

  it('refuses a duplicate id, naming both origins', () => {
    expect(() => orderPlugins([p('agents'), { ...p('agents'), origin: '/extra/agents' }])).toThrow(
      new BootError('duplicate plugin id "agents": /plugins/agents and /extra/agents'),
    );
  });

  it('refuses a missing dependency, naming both plugins', () => {
    expect(() => orderPlugins([p('flows', ['agents'])])).toThrow('plugin "flows" depends on "agents", which is not installed');
  });

  it('refuses a cycle, naming the path', () => {
    expect(() => orderPlugins([p('a', ['b']), p('b', ['c']), p('c', ['a'])])).toThrow('plugin dependency cycle: a -> b -> c -> a');
  });

  it('refuses a plugin that depends on itself', () => {
    expect(() => orderPlugins([p('a', ['a'])])).toThrow('plugin dependency cycle: a -> a');
  });
});
