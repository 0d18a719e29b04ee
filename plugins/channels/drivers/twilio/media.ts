import { InboundMediaError, type DriverContext, type FetchedMedia, type InboundMedia } from '../../driver';
import { fetchedMedia, getMedia } from '../../inbound/media-download';
import { basicAuth } from './outbound';
import type { TwilioCredentials } from './credentials';

const WHAT = 'the Twilio media';

/**
 * An MMS's media: its `MediaUrl{i}`, fetched with HTTP Basic (the account SID and auth
 * token), which Twilio enforces on media URLs. The credentials go only to the Twilio
 * API's own origin (TWILIO_API_BASE_URL, api.twilio.com): a URL elsewhere is fetched
 * without them, and egress drops them when Twilio redirects to its media store.
 */
export async function fetchTwilioMedia(context: DriverContext<TwilioCredentials>, item: InboundMedia, limits: { maxBytes: number }): Promise<FetchedMedia> {
  if (!item.url) throw new InboundMediaError(`${WHAT} has no MediaUrl`, false);
  let sameOrigin = false;
  try {
    sameOrigin = new URL(item.url).origin === new URL(context.apiBaseUrl).origin;
  } catch {
    throw new InboundMediaError(`${WHAT} has a MediaUrl that is not a URL`, false);
  }
  const headers = sameOrigin ? { authorization: basicAuth(context.connection.credentials) } : undefined;
  return fetchedMedia(await getMedia(context.egress, item.url, { what: WHAT, maxBytes: limits.maxBytes, headers }), item.mimeType, WHAT);
}
