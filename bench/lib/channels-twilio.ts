import { createHmac, randomBytes } from 'node:crypto';

/**
 * The bench's side of Twilio's messaging webhooks (bench/channels.ts): the form fields of
 * an incoming SMS as Twilio documents them, and the `X-Twilio-Signature` it puts on them
 * (base64 HMAC-SHA1 keyed with the auth token, over the URL it calls followed by each
 * field's name and value in name order). The bench keeps its own copy rather than the
 * tests' so neither tree depends on the other.
 */

/** A Twilio resource SID: a two-letter prefix and 32 hex digits. */
export const twilioSid = (prefix: 'AC' | 'SM' | 'MG') => prefix + randomBytes(16).toString('hex');

/** The fields Twilio posts for an incoming SMS (no media). */
export function incomingSms(message: { accountSid: string; from: string; to: string; body: string; sid?: string }): Record<string, string> {
  const sid = message.sid ?? twilioSid('SM');
  return {
    MessageSid: sid,
    SmsSid: sid,
    SmsMessageSid: sid,
    AccountSid: message.accountSid,
    From: message.from,
    To: message.to,
    Body: message.body,
    NumMedia: '0',
    NumSegments: '1',
    SmsStatus: 'received',
    ApiVersion: '2010-04-01',
    FromCountry: 'ES',
    ToCountry: 'ES',
  };
}

/** The signature Twilio sends for a form-encoded webhook to `url`. */
export function twilioSignature(authToken: string, url: string, fields: Record<string, string>): string {
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  for (const name of Object.keys(fields).sort()) hmac.update(name + fields[name], 'utf8');
  return hmac.digest('base64');
}

/** A signed incoming-SMS webhook, ready to post: its body and headers (`url` is what Twilio was told to call, i.e. what it signs). */
export function signedSmsHook(url: string, authToken: string, fields: Record<string, string>): { body: string; headers: Record<string, string> } {
  return {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(authToken, url, fields) },
  };
}
