import { Type, type Static } from '../../../../core';
import { ChannelSendError, defineChannelDriver, type DriverContext } from '../../driver';
import { answerHubChallenge, graphCheckNode, graphPost, verifyHubSignature } from '../chatapp/graph';
import { fetchGraphAttachment } from './media';
import { parseMessagingWebhook } from './parse-webhook';

const secret = (description: string) => Type.String({ minLength: 1, description });

const credentials = Type.Object(
  {
    page_id: secret('The Facebook Page id (for Instagram, the page linked to the Instagram professional account).'),
    access_token: secret('A Page access token with pages_messaging (and instagram_manage_messages for Instagram).'),
    app_secret: secret("The Meta app's secret: webhooks are signed with it (X-Hub-Signature-256)."),
    verify_token: secret('Any string, entered again as the Verify token when the callback URL is saved in the app dashboard.'),
  },
  { additionalProperties: false },
);

type Credentials = Static<typeof credentials>;

const messagesPath = (context: DriverContext<Credentials>) => `/${encodeURIComponent(context.connection.credentials.page_id)}/messages`;

/**
 * The social channel: Messenger and Instagram messaging through the Graph API Send API
 * (`POST /{page-id}/messages`). The token goes in the Authorization header, which Graph
 * takes like the documented `access_token` parameter, so it never sits in a URL.
 */
export const socialDriver = defineChannelDriver({
  provider: 'social',
  name: 'Messenger and Instagram',
  channelTypes: ['social'],
  // The Send API refuses a text longer than 2,000 characters.
  maxTextLength: 2000,
  credentials,
  defaultApiBaseUrl: 'https://graph.facebook.com/v21.0',

  verify: (request, connection) => verifyHubSignature(request, connection.credentials.app_secret),

  challenge: (request, connection) => answerHubChallenge(request, connection.credentials.verify_token),

  parse: (request, connection) => parseMessagingWebhook(request.body, connection.credentials.page_id),

  async send(context, message) {
    // RESPONSE: a reply to the customer's message, inside the 24-hour standard messaging window.
    const answer = await graphPost<{ message_id?: unknown }>(context, messagesPath(context), {
      recipient: { id: message.to },
      messaging_type: 'RESPONSE',
      message: { text: message.text },
    });
    if (typeof answer.message_id !== 'string' || answer.message_id === '') {
      throw new ChannelSendError('the Send API accepted the message but answered no message_id', false);
    }
    return { externalId: answer.message_id };
  },

  async typing(context, to) {
    await graphPost(context, messagesPath(context), { recipient: { id: to }, sender_action: 'typing_on' });
  },

  fetchMedia: fetchGraphAttachment,

  test: (values, context) => graphCheckNode(values, context, values.page_id, 'id,name'),
});
