export { sendMessageExecutor, checkSendMessageData, MESSAGE_CHANNEL_TYPES } from './send-message-executor';
export { channelSendingRef, type SendMessageDeps } from './send-message-deps';
export { insideServiceWindow, SERVICE_WINDOW_HOURS } from './service-window';
