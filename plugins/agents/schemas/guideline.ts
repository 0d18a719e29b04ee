import { ReadOnly, Type, Uuid } from '../../../core';
import { Text } from './formats';

const Order = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Position; lower first. Appended last when left out.' });

/** A guideline or a note: a line of instruction, in an explicit order. */
export const OrderedText = (what: string) =>
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      content: Type.String({ minLength: 1, maxLength: 20_000, description: `The ${what}` }),
      order: Order,
    },
    { additionalProperties: false },
  );

export const Guideline = OrderedText('guideline');
export const Note = OrderedText('note');

/** Create/append form: `order` may be left out. */
export const OrderedTextWrite = (what: string) =>
  Type.Object(
    { uuid: ReadOnly(Uuid()), content: OrderedText(what).properties.content, order: Type.Optional(Order) },
    { additionalProperties: false, examples: [{ content: `A ${what}`, order: 1 }] },
  );

export const OrderedTextPatch = (what: string) =>
  Type.Object(
    { uuid: ReadOnly(Uuid()), content: Type.Optional(OrderedText(what).properties.content), order: Type.Optional(Order) },
    { additionalProperties: false },
  );

