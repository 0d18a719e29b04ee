import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { startLocalS3, type LocalS3 } from '../storage/local-s3';
import { startFakeTranscriptionServer, type FakeTranscriptionServer } from './fake-transcription-server';
import { TRANSCRIPTION_PLUGINS, settled, silentWav } from './transcription-test-kit';

const BUCKET = 'switchboard-files';
const TTL_SECONDS = 3;

/** When a presigned URL was signed (X-Amz-Date, whole seconds), ms. */
const signedAt = (url: URL) => Date.parse(url.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));

describe('transcriptions with the S3 storage driver', () => {
  let s3: LocalS3;
  let kit: TestKernel;
  let provider: FakeTranscriptionServer;
  let client: S3Client;

  beforeAll(async () => {
    s3 = await startLocalS3([BUCKET]);
    provider = await startFakeTranscriptionServer({ fallback: { verbose: { text: 'Hello.', segments: [{ start: 0, end: 1, text: ' Hello.' }] } } });
    kit = await startTestKernel({
      plugins: TRANSCRIPTION_PLUGINS,
      config: {
        storage: { driver: 's3', s3Endpoint: s3.url, s3Bucket: BUCKET, s3AccessKeyId: 'S3RVER', s3SecretAccessKey: 'S3RVER', s3KeyPrefix: 'sb' },
        transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, urlTtlSeconds: TTL_SECONDS },
      },
    });
    client = new S3Client({ endpoint: s3.url, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  });
  afterAll(async () => {
    client?.destroy();
    await kit?.stop();
    await provider?.close();
    await s3?.close();
  });

  const objectKeys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((object) => object.Key).sort();

  it('streams the upload into the bucket under the tenant’s key; stored_file_url and the audio route’s 302 are signed URLs that serve its bytes', async () => {
    const audio = silentWav(2);
    const created = await kit.api.post('/api/v1/transcriptions/upload').attach('file', audio, 'call.wav').expect(202);
    const { uuid } = created.body.data;
    const key = `sb/transcriptions/${kit.tenant.uuid}/${uuid}.wav`;
    expect(created.body.data.stored_file_path).toBe(key);
    // Nothing left where it waited for its tenant.
    expect(await objectKeys()).toEqual([key]);

    const url = new URL(created.body.data.stored_file_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.url}/${BUCKET}/${key}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(TTL_SECONDS));
    const fetched = await fetch(url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(audio);

    const redirect = await kit.api.get(`/api/v1/transcriptions/${uuid}/audio`).redirects(0).expect(302);
    const location = new URL(redirect.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(`${s3.url}/${BUCKET}/${key}`);
    expect(Buffer.from(await (await fetch(location)).arrayBuffer())).toEqual(audio);

    // The job read it from the bucket too.
    expect((await settled(kit.api, uuid)).status).toBe('completed');
    expect(provider.requests.at(-1)!.file!.bytes).toEqual(audio);
  });

  it('signs stored_file_url for TRANSCRIPTION_URL_TTL_SECONDS: past it, the store refuses it as expired; a fresh read signs a fresh one', async () => {
    const created = await kit.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(1), 'call.wav').expect(202);
    const { uuid } = created.body.data;
    const url = new URL(created.body.data.stored_file_url);
    // Valid for X-Amz-Expires seconds after X-Amz-Date; s3rver enforces it.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, signedAt(url) + (TTL_SECONDS + 1) * 1000 - Date.now())));
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');

    const again = new URL((await kit.api.get(`/api/v1/transcriptions/${uuid}`).expect(200)).body.data.stored_file_url);
    expect(signedAt(again)).toBeGreaterThan(signedAt(url));
    expect((await fetch(again)).status).toBe(200);
  });

  it('leaves nothing in the bucket for a body cut off inside the file part (400)', async () => {
    const before = await objectKeys();
    const boundary = 'xyz';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`, 'latin1'),
      silentWav(20).subarray(0, 200_000),
    ]);
    await kit.api.post('/api/v1/transcriptions/upload').set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(body).expect(400);
    expect(await objectKeys()).toEqual(before);
  });
});
