import { Component, ReadOnly, Type, Uuid } from '../../../core';
import { Text } from './formats';

export const ProcedureStep = Type.Object(
  {
    order: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Position of the step; lower first' }),
    description: Type.String({ maxLength: 20_000 }),
    intent_uuid: Type.Union([Uuid(), Type.Null()], { description: 'An intent of this agent the step calls, or null' }),
  },
  { additionalProperties: false },
);

export const ProcedureStepWrite = Type.Object(
  {
    order: ProcedureStep.properties.order,
    description: ProcedureStep.properties.description,
    intent_uuid: Type.Optional(ProcedureStep.properties.intent_uuid),
  },
  { additionalProperties: false },
);

export const Procedure = Component('Procedure', Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Text(),
    steps: Type.Array(ProcedureStep, { description: 'In `order`' }),
  },
  { additionalProperties: false },
));

const steps = Type.Array(ProcedureStepWrite, { maxItems: 200 });

export const ProcedureWrite = Type.Object(
  { uuid: ReadOnly(Uuid()), name: Procedure.properties.name, description: Type.Optional(Text()), steps: Type.Optional(steps) },
  { additionalProperties: false, examples: [{ name: 'Booking', description: 'How to book', steps: [{ order: 1, description: 'Ask for a date' }] }] },
);

/** All members optional; `steps`, when present, replaces the procedure's steps. */
export const ProcedurePatch = Type.Object(
  { uuid: ReadOnly(Uuid()), name: Type.Optional(Procedure.properties.name), description: Type.Optional(Text()), steps: Type.Optional(steps) },
  { additionalProperties: false },
);
