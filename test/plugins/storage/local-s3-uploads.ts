import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An incomplete multipart upload the server holds. */
export interface HeldUpload {
  key: string;
  uploadId: string;
  initiated: Date;
  /** Listed, but an abort answers NoSuchUpload: as when another process completed or aborted it after the listing. */
  goneBeforeAbort?: boolean;
}

export interface LocalS3Uploads {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The incomplete uploads of `bucket`; a test adds them, an abort takes them out. */
  uploads: HeldUpload[];
  /** Every request, as `METHOD /path?query` (the query as sent), oldest first, and whether it was SigV4-signed. */
  requests: Array<{ method: string; url: string; signed: boolean }>;
  close(): Promise<void>;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The two S3 operations on incomplete multipart uploads that s3rver (local-s3.ts) does
 * not implement (it answers NotImplemented to `GET /{bucket}?uploads`), as the S3 API
 * reference gives them, for one path-style bucket:
 * - ListMultipartUploads, `GET /{bucket}?uploads&prefix=&max-uploads=&key-marker=&upload-id-marker=`:
 *   a `ListMultipartUploadsResult` of `Upload` elements (Key, UploadId, Initiated) sorted
 *   by key, then upload id; `IsTruncated` with `NextKeyMarker` and `NextUploadIdMarker`
 *   when more are left (the next page starts after that key and upload id);
 * - AbortMultipartUpload, `DELETE /{bucket}/{key}?uploadId=`: 204, or 404 `NoSuchUpload`.
 * Anything else is 501 NotImplemented, so a driver reaching for more fails the test.
 */
export async function startLocalS3Uploads(bucket: string): Promise<LocalS3Uploads> {
  const uploads: HeldUpload[] = [];
  const requests: LocalS3Uploads['requests'] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://s3');
    requests.push({ method: req.method ?? '', url: req.url ?? '', signed: /^AWS4-HMAC-SHA256 Credential=/.test(req.headers.authorization ?? '') });
    const error = (status: number, code: string, extra = '') =>
      res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message>${extra}</Error>`);
    const [, bucketName, ...keyParts] = url.pathname.split('/');
    if (bucketName !== bucket) return error(404, 'NoSuchBucket');
    const key = keyParts.map(decodeURIComponent).join('/');

    if (req.method === 'GET' && !key && url.searchParams.has('uploads')) {
      const prefix = url.searchParams.get('prefix') ?? '';
      const max = Math.min(1000, Number(url.searchParams.get('max-uploads') ?? 1000));
      const keyMarker = url.searchParams.get('key-marker') ?? '';
      const idMarker = url.searchParams.get('upload-id-marker') ?? '';
      const after = (u: HeldUpload) => !keyMarker || u.key > keyMarker || (u.key === keyMarker && idMarker !== '' && u.uploadId > idMarker);
      const matching = uploads
        .filter((u) => u.key.startsWith(prefix) && after(u))
        .sort((a, b) => (a.key === b.key ? (a.uploadId < b.uploadId ? -1 : 1) : a.key < b.key ? -1 : 1));
      const page = matching.slice(0, max);
      const truncated = matching.length > page.length;
      const last = page.at(-1);
      const body =
        `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
        `<Bucket>${bucket}</Bucket><KeyMarker>${xml(keyMarker)}</KeyMarker><UploadIdMarker>${xml(idMarker)}</UploadIdMarker>` +
        (truncated && last ? `<NextKeyMarker>${xml(last.key)}</NextKeyMarker><NextUploadIdMarker>${xml(last.uploadId)}</NextUploadIdMarker>` : '') +
        `<Prefix>${xml(prefix)}</Prefix><MaxUploads>${max}</MaxUploads><IsTruncated>${truncated}</IsTruncated>` +
        page
          .map(
            (u) =>
              `<Upload><Key>${xml(u.key)}</Key><UploadId>${xml(u.uploadId)}</UploadId>` +
              `<Initiator><ID>local</ID><DisplayName>local</DisplayName></Initiator><Owner><ID>local</ID><DisplayName>local</DisplayName></Owner>` +
              `<StorageClass>STANDARD</StorageClass><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
          )
          .join('') +
        `</ListMultipartUploadsResult>`;
      return res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    }

    if (req.method === 'DELETE' && key && url.searchParams.has('uploadId')) {
      const uploadId = url.searchParams.get('uploadId');
      const index = uploads.findIndex((u) => u.key === key && u.uploadId === uploadId);
      if (index < 0 || uploads[index].goneBeforeAbort) return error(404, 'NoSuchUpload', `<UploadId>${xml(uploadId ?? '')}</UploadId>`);
      uploads.splice(index, 1);
      return res.writeHead(204).end();
    }
    return error(501, 'NotImplemented');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    uploads,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
