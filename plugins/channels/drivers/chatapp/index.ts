import { Type, type Static } from '../../../../core';
import { ChannelSendError, defineChannelDriver, type DriverContext } from '../../driver';
import { answerHubChallenge, graphCheckNode, graphPost, verifyHubSignature } from './graph';
import { fetchWhatsAppMedia } from './media';
import { parseWhatsAppWebhook } from './parse-webhook';

const secret = (description: string) => Type.String({ minLength: 1, description });

const credentials = Type.Object(
  {
    phone_number_id: secret('The business phone number id messages are sent from (not the number itself).'),
    business_account_id: secret('The WhatsApp Business Account id (templates live under it).'),
    access_token: secret('A system user access token with whatsapp_business_messaging.'),
    app_secret: secret("The Meta app's secret: webhooks are signed with it (X-Hub-Signature-256)."),
    verify_token: secret('Any string, entered again as the Verify token when the callback URL is saved in the app dashboard.'),
  },
  { additionalProperties: false },
);

type Credentials = Static<typeof credentials>;

/** A send's answer: `{messaging_product, contacts: [{input, wa_id}], messages: [{id}]}`. */
interface SendAnswer {
  messages?: Array<{ id?: unknown }>;
}

/** The Cloud API takes the number with its country code; a leading `+` (our E.164 form) is dropped to match how webhooks spell it. */
const recipientOf = (to: string): string => to.replace(/^\+/, '');

const messagesPath = (context: DriverContext<Credentials>) => `/${encodeURIComponent(context.connection.credentials.phone_number_id)}/messages`;

/**
 * The chatapp channel: the WhatsApp Cloud API shape on the Graph API. Inbound webhooks are
 * verified by their X-Hub-Signature-256; text replies go out with `POST /{phone-number-id}/messages`.
 */
export const chatappDriver = defineChannelDriver({
  provider: 'chatapp',
  name: 'WhatsApp Cloud API',
  channelTypes: ['chatapp'],
  // A text message's body holds at most 4,096 characters.
  maxTextLength: 4096,
  credentials,
  defaultApiBaseUrl: 'https://graph.facebook.com/v21.0',

  verify: (request, connection) => verifyHubSignature(request, connection.credentials.app_secret),

  challenge: (request, connection) => answerHubChallenge(request, connection.credentials.verify_token),

  parse: (request, connection) => parseWhatsAppWebhook(request.body, connection.credentials.phone_number_id, connection.credentials.business_account_id),

  async send(context, message) {
    const answer = await graphPost<SendAnswer>(context, messagesPath(context), {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: recipientOf(message.to),
      type: 'text',
      text: { body: message.text },
    });
    const id = answer.messages?.[0]?.id;
    // Accepted without an id: sending again could deliver it twice, so it is not retried.
    if (typeof id !== 'string' || id === '') throw new ChannelSendError('the Cloud API accepted the message but answered no message id', false);
    return { externalId: id };
  },

  /** A template message: `{type: 'template', template: {name, language: {code}, components}}` to the same `/messages` edge. */
  async sendTemplate(context, message) {
    const answer = await graphPost<SendAnswer>(context, messagesPath(context), {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: recipientOf(message.to),
      type: 'template',
      template: { name: message.name, language: { code: message.language }, ...(message.components.length > 0 ? { components: message.components } : {}) },
    });
    const id = answer.messages?.[0]?.id;
    if (typeof id !== 'string' || id === '') throw new ChannelSendError('the Cloud API accepted the template message but answered no message id', false);
    return { externalId: id };
  },

  /**
   * The Cloud API's typing indicator hangs on the customer's message: `{status: 'read',
   * message_id, typing_indicator: {type: 'text'}}` marks it read and shows typing for up to
   * 25 s (or until we answer). It cannot be shown to a number alone, so without the
   * inbound message's id (`replyTo`) this does nothing.
   */
  async typing(context, _to, replyTo?: string) {
    if (!replyTo) {
      context.logger.debug('chatapp typing indicator skipped: it needs the inbound message id');
      return;
    }
    await graphPost(context, messagesPath(context), {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: replyTo,
      typing_indicator: { type: 'text' },
    });
  },

  fetchMedia: fetchWhatsAppMedia,

  test: (values, context) => graphCheckNode(values, context, values.phone_number_id, 'id,display_phone_number,verified_name'),
});
