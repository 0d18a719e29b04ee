import { Type, type Static } from '../../../../core';

/**
 * A Twilio connection: the account's SID and auth token (API calls with HTTP Basic, and
 * the key of `X-Twilio-Signature`), and who our messages come from. An outbound message
 * carries no sender, so the connection names it: a Messaging Service (Twilio then picks
 * the number) or one of the account's numbers.
 */
export const TwilioCredentials = Type.Object(
  {
    account_sid: Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'The account SID (AC followed by 32 hex digits).' }),
    auth_token: Type.String({ minLength: 1, description: 'The account auth token: signs webhooks and authenticates API calls.' }),
    from_number: Type.Optional(Type.String({ pattern: '^\\+[1-9][0-9]{1,14}$', description: 'The number replies are sent from (E.164).' })),
    messaging_service_sid: Type.Optional(
      Type.String({ pattern: '^MG[0-9a-fA-F]{32}$', description: 'A Messaging Service to send from; takes precedence over from_number.' }),
    ),
  },
  { additionalProperties: false },
);

export type TwilioCredentials = Static<typeof TwilioCredentials>;
