import { InboundMediaError, type DriverContext, type FetchedMedia, type InboundMedia } from '../../driver';
import { fetchedMedia, getMedia } from '../../inbound/media-download';

const WHAT = 'the Messenger attachment';

/**
 * A Messenger or Instagram attachment: the webhook's `payload.url` is a CDN link that
 * needs no token (and expires on Meta's schedule), so it is fetched as it is; the page
 * token is not sent to it.
 */
export async function fetchGraphAttachment(context: DriverContext, item: InboundMedia, limits: { maxBytes: number }): Promise<FetchedMedia> {
  if (!item.url) throw new InboundMediaError(`${WHAT} has no url`, false);
  return fetchedMedia(await getMedia(context.egress, item.url, { what: WHAT, maxBytes: limits.maxBytes }), item.mimeType, WHAT);
}
