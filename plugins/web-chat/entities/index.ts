export { WebChatVisitor } from './web-chat-visitor.entity';
