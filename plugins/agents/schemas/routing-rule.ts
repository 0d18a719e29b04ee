import { Component, ReadOnly, Type, Uuid } from '../../../core';
import { destinationMembers } from './destination';
import { Label, OpenObject, Text, allOptional } from './formats';

const Phrases = Type.Array(Type.String({ maxLength: 500 }), { maxItems: 200 });

/** Voice-activated IVR: transfers a call when the customer asks for somewhere. */
export const RoutingRule = Component('RoutingRule', Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    detection_mode: Label('How the request is detected', 'intent'),
    trigger_keyword: Type.String({ maxLength: 200 }),
    department_name: Type.String({ maxLength: 200 }),
    phrases: Phrases,
    ai_prompt: Text('Detection instruction for the model'),
    voice_response: Text('Said before the transfer'),
    voice_on_error: Text('Said when the transfer fails'),
    voice_on_success: Text('Said when the transfer succeeds'),
    ...destinationMembers,
    transfer_type: Label('How the call is handed over', 'transfer_call'),
    transfer_config: OpenObject('Transfer options for the telephony connector'),
    priority: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Lower number: higher priority, evaluated earlier' }),
    is_active: Type.Boolean({ description: '`false` keeps the rule configured but it never fires' }),
  },
  { additionalProperties: false },
));

const optional = allOptional(RoutingRule.properties);

/** Create form: `destination_type` is required, the rest defaults. `priority` defaults to after the last rule. */
export const RoutingRuleWrite = Type.Object(
  { ...optional, uuid: ReadOnly(Uuid()), destination_type: destinationMembers.destination_type },
  {
    additionalProperties: false,
    examples: [{ department_name: 'Sales', phrases: ['talk to sales'], destination_type: 'extension', destination: '201', priority: 1 }],
  },
);

/** Partial: only the members sent change. */
export const RoutingRulePatch = Type.Object({ ...optional, uuid: ReadOnly(Uuid()) }, { additionalProperties: false, examples: [{ is_active: false }] });
