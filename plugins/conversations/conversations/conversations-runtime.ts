import type { HttpService } from '../../../core';
import type { ConversationWriter, ConversationWriterDeps } from './conversation-writer';

/** What the conversations folder (routes, the idle-session closer) is given by the plugin's init. */
export interface ConversationsRuntime extends ConversationWriterDeps {
  http: HttpService;
  /** The one code path that writes conversations (the routes' and other plugins'). */
  writer: ConversationWriter;
}
