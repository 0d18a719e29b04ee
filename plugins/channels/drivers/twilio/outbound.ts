import { EgressError, EgressNetworkError, EgressTimeoutError, type Egress, type EgressResponse } from '../../../../core';
import { ChannelSendError, type DriverContext, type OutboundMessage } from '../../driver';
import type { TwilioCredentials } from './credentials';

/**
 * Twilio's REST API (2010-04-01) as the driver uses it: create a Message (form-encoded,
 * HTTP Basic with the account SID and auth token; answers the Message resource with its
 * `sid`), and fetch the Account to check credentials. Failures answer
 * `{code, message, more_info, status}`.
 */

export const basicAuth = (credentials: TwilioCredentials) => `Basic ${Buffer.from(`${credentials.account_sid}:${credentials.auth_token}`).toString('base64')}`;

const accountUrl = (apiBaseUrl: string, accountSid: string) => `${apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}`;

export async function sendTwilioMessage(context: DriverContext<TwilioCredentials>, message: OutboundMessage): Promise<{ externalId: string }> {
  const { credentials } = context.connection;
  const form = new URLSearchParams({ To: message.to, Body: message.text, StatusCallback: context.hookUrl });
  // The number the customer wrote to answers them; else the connection's messaging service or number.
  if (message.from) form.set('From', message.from);
  else if (credentials.messaging_service_sid) form.set('MessagingServiceSid', credentials.messaging_service_sid);
  else if (credentials.from_number) form.set('From', credentials.from_number);
  else throw new ChannelSendError('no sender for this Twilio message: the customer wrote to no known number, and the connection names neither from_number nor messaging_service_sid', false);
  let response: EgressResponse;
  try {
    // No Idempotency-Key: Twilio does not deduplicate on it, and with one the egress client
    // would repeat a POST on a 5xx; the channels plugin decides retries.
    response = await context.egress.request(`${accountUrl(context.apiBaseUrl, credentials.account_sid)}/Messages.json`, {
      method: 'POST',
      headers: { authorization: basicAuth(credentials), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
  } catch (error) {
    throw sendFailure(error);
  }
  if (response.status >= 200 && response.status < 300) {
    const sid = jsonOf(response)?.sid;
    if (typeof sid !== 'string' || sid === '') throw new ChannelSendError(`Twilio answered ${response.status} without a message sid`, false);
    return { externalId: sid };
  }
  const reason = twilioReason(response);
  if (response.status === 429 || response.status >= 500) throw new ChannelSendError(reason, true, retryAfterSeconds(response.headers['retry-after']));
  throw new ChannelSendError(reason, false);
}

export async function testTwilioCredentials(credentials: TwilioCredentials, context: { egress: Egress; apiBaseUrl: string }): Promise<{ valid: true } | { valid: false; message: string }> {
  let response: EgressResponse;
  try {
    response = await context.egress.request(`${accountUrl(context.apiBaseUrl, credentials.account_sid)}.json`, {
      headers: { authorization: basicAuth(credentials), accept: 'application/json' },
    });
  } catch (error) {
    if (error instanceof EgressError) return { valid: false, message: `Twilio could not be reached: ${error.message}` };
    throw error;
  }
  if (response.status === 200) return { valid: true };
  if (response.status === 401 || response.status === 403 || response.status === 404) {
    return { valid: false, message: `Twilio refused the account SID and auth token (${twilioReason(response)})` };
  }
  return { valid: false, message: `Twilio could not check the credentials (${twilioReason(response)})` };
}

/** A failure of the call itself: the network or a timeout may pass, a refused target (egress policy) will not. */
function sendFailure(error: unknown): unknown {
  if (error instanceof EgressNetworkError || error instanceof EgressTimeoutError) return new ChannelSendError(`Twilio could not be reached: ${error.message}`, true);
  if (error instanceof EgressError) return new ChannelSendError(`Twilio could not be called: ${error.message}`, false);
  return error;
}

function jsonOf(response: EgressResponse): Record<string, unknown> | null {
  try {
    const value = response.json();
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Twilio's own words: `Twilio error 21211: The 'To' number ... is not a valid phone number.` */
export function twilioReason(response: EgressResponse): string {
  const body = jsonOf(response);
  const code = body?.code;
  const message = typeof body?.message === 'string' ? body.message : null;
  if (message && (typeof code === 'number' || typeof code === 'string')) return `Twilio error ${code}: ${message}`;
  if (message) return `Twilio: ${message}`;
  return `Twilio answered HTTP ${response.status}`;
}

/** `Retry-After` in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number.parseInt(value, 10);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
