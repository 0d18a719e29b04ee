import { ReadOnly, Type, Uuid } from '../../../core';
import { Text } from './formats';

/** An example exchange: what the contact says, the intent it shows, the reply. */
export const TrainingRow = Type.Object(
  { uuid: ReadOnly(Uuid()), content: Text('What the contact says'), intent: Type.String({ maxLength: 200 }), response: Text('The reply to give') },
  { additionalProperties: false },
);

export const TrainingRowWrite = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    content: Type.String({ minLength: 1, maxLength: 20_000, description: 'What the contact says' }),
    intent: Type.Optional(TrainingRow.properties.intent),
    response: Type.Optional(TrainingRow.properties.response),
  },
  { additionalProperties: false, examples: [{ content: 'How much is it?', intent: 'pricing', response: 'Plans start at 10 EUR a month.' }] },
);

export const TrainingRowPatch = Type.Object(
  {
    uuid: ReadOnly(Uuid()),
    content: Type.Optional(TrainingRowWrite.properties.content),
    intent: Type.Optional(TrainingRow.properties.intent),
    response: Type.Optional(TrainingRow.properties.response),
  },
  { additionalProperties: false },
);
