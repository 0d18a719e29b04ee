import { Type, Uuid } from '../../../core';

/** Where a routing or guard rule sends the conversation. */
export const destinationMembers = {
  destination_type: Type.String({ maxLength: 32, description: 'For example `extension`, `phone_number`, or `agent`', examples: ['extension'] }),
  destination: Type.String({ maxLength: 2000, description: 'The extension, number or address; not used when `destination_type=agent`' }),
  destination_agent_uuid: Type.Union([Uuid(), Type.Null()], { description: 'Another agent of this tenant; required when `destination_type=agent`' }),
};
