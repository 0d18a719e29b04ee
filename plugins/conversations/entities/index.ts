export { Conversation } from './conversation.entity';
export { ConversationSession } from './conversation-session.entity';
export { ConversationMessage } from './conversation-message.entity';
export { MessageExportSetting } from './message-export-setting.entity';
