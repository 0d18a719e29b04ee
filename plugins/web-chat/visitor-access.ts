import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import { ConflictError, NotFoundError, UnauthorizedError, type TenantService } from '../../core';
import type { WebChatChannel, WebChatChannels } from '../agents';
import { grantOrigin } from './cors';
import { WebChatVisitor } from './entities';
import { bearerToken, tokenMatches } from './visitor-tokens';

/** A public request's channel, once its origin is granted: the CORS headers it answers with. */
export interface Granted {
  channel: WebChatChannel;
  cors: Record<string, string>;
}

/**
 * The checks every public chat request passes, in an order that leaks nothing: an unknown
 * key is a 404 to anyone; an origin the channel does not allow a 403 (before anything of
 * the channel's state is told); then a channel switched off, or an agent that is not
 * active, a 409 the page can show.
 */
export class VisitorAccess {
  constructor(
    private readonly channels: WebChatChannels,
    private readonly tenants: TenantService,
  ) {}

  /** The channel of `publicKey` with the origin granted (CORS headers set on the response). */
  async channel(req: Request, publicKey: string): Promise<Granted> {
    const channel = await this.channels.find(publicKey);
    if (!channel) throw new NotFoundError('Chat not found');
    const cors = grantOrigin(req, channel);
    return { channel, cors };
  }

  /** As `channel`, and the channel can talk now. */
  async open(req: Request, publicKey: string): Promise<Granted> {
    const granted = await this.channel(req, publicKey);
    if (!granted.channel.is_active) throw new ConflictError('This chat is switched off');
    if (!granted.channel.agent_active) throw new ConflictError('This chat’s agent is not active');
    return granted;
  }

  /**
   * The visitor token of the request is the one given for this conversation on this
   * channel: 401 otherwise, the same for a missing token, a wrong one and a conversation
   * that does not exist (nothing tells them apart).
   */
  async visitor(req: Request, em: EntityManager, channel: WebChatChannel, conversationUuid: string): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new UnauthorizedError('Send the visitor token as Authorization: Bearer <visitor_token>');
    const visitor = await this.tenants.run(channel.tenant, () =>
      em.findOne(WebChatVisitor, { conversationUuid, channelUuid: channel.channel_uuid }, { disableIdentityMap: true }),
    );
    if (!visitor || !tokenMatches(token, visitor.tokenHash)) throw new UnauthorizedError('The visitor token does not open this conversation');
  }
}
