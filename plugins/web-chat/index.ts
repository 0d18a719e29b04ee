import { coreServices, definePlugin } from '../../core';
import { webChatChannelsRef } from '../agents';
import { conversationWriterRef } from '../conversations';
import { chatTurnsRef } from '../runtime';
import * as entities from './entities';
import { Migration0001WebChat } from './migrations/0001-web-chat';
import { pageRoutes } from './routes/page-routes';
import { publicChatRoutes } from './routes/public-routes';
import { VisitorAccess } from './visitor-access';

/**
 * Web chat: an agent's `web_chat` channel answers visitors of a website. Its public key
 * names the channel in the public routes, the hosted page and the widget; each
 * conversation has a visitor token; browsers of the channel's allowed origins (and the
 * hosted page) may call it; each message is one runtime turn, streamed.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-web-chat', class: Migration0001WebChat }],
  deps: {
    http: coreServices.http,
    tenants: coreServices.tenant,
    channels: webChatChannelsRef,
    conversations: conversationWriterRef,
    turns: chatTurnsRef,
  },
  init({ http, tenants, channels, conversations, turns }) {
    const access = new VisitorAccess(channels, tenants);
    for (const route of [...publicChatRoutes({ access, tenants, conversations, turns }), ...pageRoutes(access)]) http.route(route);
  },
});
