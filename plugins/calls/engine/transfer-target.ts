import type { ChatTurnJson } from '../../runtime';
import { callingNumbers } from './agent-line';
import type { CallDeps } from './deps';

/**
 * Where a routing or guard rule hands the call: its `destination` (a number, an
 * extension, a SIP address), or for `destination_type: agent` the first number of that
 * agent that takes calls (the call rings there and reaches that agent as an incoming
 * call). Null when there is nowhere to go: the call then ends rather than hang in the air.
 */
export async function transferTarget(deps: CallDeps, transfer: NonNullable<ChatTurnJson['transfer']>): Promise<string | null> {
  if (transfer.destination_type === 'agent' && transfer.destination_agent_uuid) {
    const agent = await deps.agents.getWithoutSlots(transfer.destination_agent_uuid);
    return agent ? (callingNumbers(agent)[0] ?? null) : null;
  }
  const destination = transfer.destination.trim();
  return destination === '' ? null : destination;
}
