import type { EntityManager } from '@mikro-orm/postgresql';
import type { ConversationWriter } from '../../conversations';

/** The chatapp's customer-service window: free text may answer a customer for this long after their last message. */
export const SERVICE_WINDOW_HOURS = 24;

/**
 * Whether the customer wrote in the channel thread's conversation (the one their
 * messages on this channel and address go to) less than 24 hours ago. No thread: they
 * never wrote here, so the window is closed.
 */
export async function insideServiceWindow(em: EntityManager, conversations: ConversationWriter, threadConversationUuid: string | null, now = new Date()): Promise<boolean> {
  if (!threadConversationUuid) return false;
  const since = new Date(now.getTime() - SERVICE_WINDOW_HOURS * 60 * 60 * 1000);
  return (await conversations.countCustomerMessagesSince(em, threadConversationUuid, since)) > 0;
}
