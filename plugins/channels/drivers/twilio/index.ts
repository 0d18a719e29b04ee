import { defineChannelDriver } from '../../driver';
import { TwilioCredentials } from './credentials';
import { parseTwilioWebhook } from './inbound';
import { fetchTwilioMedia } from './media';
import { sendTwilioMessage, testTwilioCredentials } from './outbound';
import { verifyTwilioSignature } from './signature';

/**
 * Twilio Programmable Messaging (SMS and MMS). Point the number's (or Messaging Service's)
 * "A message comes in" webhook at the channel's hook, HTTP POST; each reply carries the
 * hook as its `StatusCallback`, so delivery receipts come back to the same place.
 */
export const twilioDriver = defineChannelDriver({
  provider: 'twilio',
  name: 'Twilio SMS',
  channelTypes: ['sms'],
  // Twilio refuses a body longer than 1,600 characters.
  maxTextLength: 1600,
  credentials: TwilioCredentials,
  defaultApiBaseUrl: 'https://api.twilio.com',
  verify: (request, connection) => verifyTwilioSignature(request, connection.credentials.auth_token),
  parse: (request) => parseTwilioWebhook(request),
  // Empty TwiML: Twilio sends nothing itself, the agent's reply goes out through the API.
  acknowledge: { contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' },
  send: sendTwilioMessage,
  fetchMedia: fetchTwilioMedia,
  test: testTwilioCredentials,
});
