import { configRef, coreServices, definePlugin, type ConfigValues, type PluginConfig } from '../../../core';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const shopConfig = {
  currency: { doc: 'Currency of new orders', format: String, default: 'EUR' },
  maxItems: { doc: 'Most items in one order', format: 'nat', default: 20 },
  express: { doc: 'Offer express delivery', format: Boolean, default: false },
  tier: { doc: 'Service tier', format: ['basic', 'gold'] as const, default: 'basic' },
  limits: { perDay: { doc: 'Orders a day', format: 'nat', default: 5 } },
};

// Compile-time checks (tsc runs over test/): the slice's types come from the schema.
const typed = (config: PluginConfig<typeof shopConfig>) => {
  const currency: string = config.get('currency');
  const maxItems: number = config.get('maxItems');
  const tier: 'basic' | 'gold' = config.get('tier');
  const perDay: number = config.get('limits').perDay;
  // @ts-expect-error a key the schema lacks does not compile
  config.get('colour');
  // @ts-expect-error maxItems is a number
  const wrong: string = config.get('maxItems');
  const values: ConfigValues<typeof shopConfig> = config.all();
  return { currency, maxItems, tier, perDay, wrong, values };
};
void typed;

describe('a plugin config slice', () => {
  let kit: TestKernel | undefined;
  afterEach(async () => {
    await kit?.stop();
    kit = undefined;
  });

  it('reads its own slice, typed by its schema, one key at a time or whole', async () => {
    const seen: unknown[] = [];
    const shop = definePlugin({
      id: 'shop',
      config: shopConfig,
      deps: { config: configRef(shopConfig) },
      init({ config }) {
        seen.push(config.get('currency'), config.get('maxItems'), config.get('limits'), config.all());
      },
    });
    kit = await startTestKernel({ plugins: [shop], config: { shop: { maxItems: 3, tier: 'gold' } } });
    expect(seen).toEqual([
      'EUR',
      3,
      { perDay: 5 },
      { currency: 'EUR', maxItems: 3, express: false, tier: 'gold', limits: { perDay: 5 } },
    ]);
  });

  it('gives every call of all() its own copy, and an empty one to a plugin without a slice', async () => {
    const copies: Array<Record<string, unknown>> = [];
    const shop = definePlugin({
      id: 'shop',
      config: shopConfig,
      deps: { config: configRef(shopConfig) },
      init({ config }) {
        const first = config.all() as unknown as Record<string, unknown>;
        first.currency = 'changed';
        copies.push(first, config.all() as unknown as Record<string, unknown>);
      },
    });
    const bare = definePlugin({ id: 'bare', deps: { config: coreServices.config }, init: ({ config }) => void copies.push(config.all()) });
    kit = await startTestKernel({ plugins: [shop, bare] });
    expect(copies[1].currency).toBe('EUR');
    expect(copies[2]).toEqual({});
  });

  it('refuses at boot a configRef of a schema other than the plugin own', async () => {
    const other = { currency: { format: String, default: 'USD' } };
    const shop = definePlugin({ id: 'shop', config: shopConfig, deps: { config: configRef(other) }, init() {} });
    await expect(startTestKernel({ plugins: [shop] })).rejects.toThrow('plugin "shop": deps.config is configRef() of another schema than the plugin\'s own `config`');
  });

  it('still validates the slice at boot: a bad value stops it, naming the key', async () => {
    const shop = definePlugin({ id: 'shop', config: shopConfig, deps: { config: configRef(shopConfig) }, init() {} });
    await expect(startTestKernel({ plugins: [shop], config: { shop: { tier: 'platinum' } } })).rejects.toThrow(/shop\.tier/);
  });
});
