import { EgressError, EgressNetworkError, EgressTimeoutError, type EgressResponse } from '../../../../core';
import { twilioReason, type TwilioCredentials } from '../../../channels';
import { TelephonySendError, type CallDriverContext } from '../../driver';

/**
 * Twilio's Voice REST API (2010-04-01) as the voice driver uses it: create a Call, update
 * one (new TwiML, or `Status` to end it), find a conference by name and update a
 * participant (`Muted`), all form-encoded with HTTP Basic (account SID and auth token).
 * Failures answer `{code, message, more_info, status}`.
 */

const basicAuth = ({ account_sid, auth_token }: TwilioCredentials) => `Basic ${Buffer.from(`${account_sid}:${auth_token}`).toString('base64')}`;

const accountUrl = (context: CallDriverContext<TwilioCredentials>) => `${context.apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(context.connection.credentials.account_sid)}`;

/** Twilio refused the request: its error `code` (21220: the call is not in progress), when its body gave one. */
export class TwilioCallError extends TelephonySendError {
  constructor(
    message: string,
    retryable: boolean,
    readonly code: number | null,
  ) {
    super(message, retryable);
  }
}

/** Twilio's error code for an update of a call that is no longer in progress. */
export const CALL_NOT_IN_PROGRESS = 21220;

function codeOf(response: EgressResponse): number | null {
  try {
    const code = (response.json() as { code?: unknown } | null)?.code;
    return typeof code === 'number' ? code : typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : null;
  } catch {
    return null;
  }
}

/** POSTs a form to the account's Calls resource (`''`) or one call (`/{sid}`); answers the resource JSON. */
export function postCalls(context: CallDriverContext<TwilioCredentials>, path: string, form: URLSearchParams): Promise<Record<string, unknown>> {
  return twilioApi(context, 'POST', `/Calls${path}.json`, form);
}

/** The SID of the account's conference named `room` that is in progress, or null. */
export async function conferenceSid(context: CallDriverContext<TwilioCredentials>, room: string): Promise<string | null> {
  const query = new URLSearchParams({ FriendlyName: room, Status: 'in-progress' });
  const page = await twilioApi(context, 'GET', `/Conferences.json?${query}`);
  const found = Array.isArray(page.conferences) ? (page.conferences as Array<{ sid?: unknown }>).find((conference) => typeof conference.sid === 'string') : undefined;
  return (found?.sid as string | undefined) ?? null;
}

/** Updates one participant of a conference (the call's leg in it). */
export function postParticipant(context: CallDriverContext<TwilioCredentials>, conference: string, callSid: string, form: URLSearchParams): Promise<Record<string, unknown>> {
  return twilioApi(context, 'POST', `/Conferences/${encodeURIComponent(conference)}/Participants/${encodeURIComponent(callSid)}.json`, form);
}

/** One request to a resource of the account (`path` from `/Calls...`, `/Conferences...`); answers the resource JSON. */
async function twilioApi(context: CallDriverContext<TwilioCredentials>, method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<Record<string, unknown>> {
  let response: EgressResponse;
  try {
    // No retries here: a repeated create places a second call; the plugin decides.
    response = await context.egress.request(`${accountUrl(context)}${path}`, {
      method,
      headers: {
        authorization: basicAuth(context.connection.credentials),
        accept: 'application/json',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: form.toString() } : {}),
    });
  } catch (error) {
    if (error instanceof EgressNetworkError || error instanceof EgressTimeoutError) throw new TelephonySendError(`Twilio could not be reached: ${error.message}`, true);
    if (error instanceof EgressError) throw new TelephonySendError(`Twilio could not be called: ${error.message}`, false);
    throw error;
  }
  if (response.status >= 200 && response.status < 300) {
    const body = response.json();
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  }
  throw new TwilioCallError(twilioReason(response), response.status === 429 || response.status >= 500, codeOf(response));
}

/** A recording's audio as WAV (Twilio serves the recording at its URL plus an extension). */
export async function getRecording(context: CallDriverContext<TwilioCredentials>, url: string): Promise<{ body: Buffer; contentType: string }> {
  const response = await context.egress.request(`${url.replace(/\.(wav|mp3|json)$/i, '')}.wav`, {
    headers: { authorization: basicAuth(context.connection.credentials) },
  });
  if (response.status !== 200) throw new TelephonySendError(twilioReason(response), response.status === 429 || response.status >= 500);
  return { body: response.body, contentType: String(response.headers['content-type'] ?? 'audio/wav') };
}
