import type convict from 'convict';

/** A convict schema object: what the core and each plugin's `config` slice are written in. */
export type ConvictSchema = convict.Schema<any>;

/** A setting's type from its default, widened (`default: 5` is any number). */
type SettingValue<D> = D extends string ? string : D extends number ? number : D extends boolean ? boolean : D;

/**
 * The values a convict schema gives once validated: a setting whose `format` is a list
 * of strings is one of them (write the list `as const` for the union), any other takes
 * the type of its `default`; a group without a `default` is an object of its own.
 * `ConfigValues<{ maxPerTenant: { format: 'nat', default: 10_000 } }>` is `{ maxPerTenant: number }`.
 */
export type ConfigValues<S> = {
  [K in keyof S]: S[K] extends { format: readonly (infer E extends string)[]; default: unknown }
    ? E
    : S[K] extends { default: infer D }
      ? SettingValue<D>
      : ConfigValues<S[K]>;
};
