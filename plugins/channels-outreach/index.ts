import { definePlugin } from '../../core';
import { sendMessageExecutor } from '../channels';
import { contributeTaskExecutor } from '../outreach';

/**
 * The link between two areas (Medusa's module links): outreach runs tasks by type, the
 * channels plugin sends messages; this plugin gives outreach the `send_message` executor,
 * so an install without one of them still boots the other.
 */
export default definePlugin({
  ...contributeTaskExecutor(sendMessageExecutor),
});
