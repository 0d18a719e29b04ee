import { Component, ReadOnly, Type, Uuid } from '../../../core';
import { destinationMembers } from './destination';
import { Text, allOptional } from './formats';

const Strings = (description: string) => Type.Array(Type.String({ maxLength: 500 }), { maxItems: 200, description });

export const ThenAction = Type.Union([Type.Literal('forward'), Type.Literal('end_conversation')]);

/** Fires on a sensitive situation, whatever the customer asked for: forward or end. */
export const GuardRule = Component('GuardRule', Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    name: Type.String({ maxLength: 200 }),
    when_condition: Type.String({ minLength: 1, maxLength: 20_000, description: 'The situation that fires the guard' }),
    example_phrases: Strings('What a contact might say in that situation'),
    then_action: ThenAction,
    selected_channels: Strings('Channels the guard applies to, e.g. `phone`; empty means all'),
    say_before_forwarding: Text(),
    say_before_end: Text('Closing line; required when `then_action=end_conversation`'),
    ...destinationMembers,
    is_active: Type.Boolean(),
    is_default: Type.Boolean(),
  },
  { additionalProperties: false },
));

const optional = allOptional(GuardRule.properties);

/** Create form: `when_condition` and `then_action` are required. */
export const GuardRuleWrite = Type.Object(
  { ...optional, uuid: ReadOnly(Uuid()), when_condition: GuardRule.properties.when_condition, then_action: ThenAction },
  {
    additionalProperties: false,
    examples: [{ name: 'Medical emergency', when_condition: 'The caller describes a medical emergency', then_action: 'forward', destination_type: 'phone_number', destination: '+15550100' }],
  },
);

export const GuardRulePatch = Type.Object({ ...optional, uuid: ReadOnly(Uuid()) }, { additionalProperties: false });
