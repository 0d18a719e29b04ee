import { Type, type FieldErrors, type Static } from '../../../core';

/**
 * How a number that arrives or is dialled short (a local number without its country
 * code) is made E.164: a number of `condition_length` digits (when set) that starts with
 * `condition_prefix` (when set) gets `default_prefix` in front. With no condition set,
 * `default_prefix` is put in front of every number that does not start with `+`.
 */
const DefaultPrefix = Type.Union([Type.String({ pattern: '^\\+?[0-9]{1,6}$' }), Type.Null()], {
  description: 'Digits put in front of a matching number, with an optional leading `+` (`+1`, `+34`, `0034`); null: no normalization',
});
const ConditionLength = Type.Union([Type.Integer({ minimum: 1, maximum: 15 }), Type.Null()], { description: 'Only numbers of exactly this many digits are normalized (1 to 15); null: any length' });
const ConditionPrefix = Type.Union([Type.String({ pattern: '^\\+?[0-9]{1,10}$' }), Type.Null()], { description: 'Only numbers starting with these digits are normalized; null: any start' });

export const Normalizer = Type.Object(
  { default_prefix: DefaultPrefix, condition_length: ConditionLength, condition_prefix: ConditionPrefix },
  { additionalProperties: false, description: 'Makes short numbers E.164: `default_prefix` goes in front of a number that meets the conditions' },
);

export const NormalizerWrite = Type.Object(
  { default_prefix: Type.Optional(DefaultPrefix), condition_length: Type.Optional(ConditionLength), condition_prefix: Type.Optional(ConditionPrefix) },
  { additionalProperties: false, description: `${Normalizer.description}. Members left out keep their value (on create: null)` },
);

export type NormalizerValue = Static<typeof Normalizer>;

export const NO_NORMALIZER: NormalizerValue = { default_prefix: null, condition_length: null, condition_prefix: null };

/** The stored rules with the members sent; a condition without a prefix to add would do nothing, so it is refused. */
export function mergeNormalizer(stored: NormalizerValue, sent: Static<typeof NormalizerWrite> | undefined, errors: FieldErrors): NormalizerValue {
  const merged = { ...stored, ...sent };
  if (merged.default_prefix === null && (merged.condition_length !== null || merged.condition_prefix !== null)) {
    (errors['normalizer.default_prefix'] ??= []).push('is required when `condition_length` or `condition_prefix` is set');
  }
  return merged;
}
