export { ChannelConnection } from './channel-connection.entity';
export { ChannelInboundMessage } from './channel-inbound.entity';
export { ChannelThread } from './channel-thread.entity';
export { ChannelDelivery } from './channel-delivery.entity';
export { ChatappTemplate } from './chatapp-template.entity';
