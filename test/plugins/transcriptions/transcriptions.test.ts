import { startTestKernel, transactionsOpenLongerThan, type TestKernel } from '../../../core/testing';
import { startFakeTranscriptionServer, type FakeTranscriptionServer } from './fake-transcription-server';
import { TRANSCRIPTION_PLUGINS, eventually, responseSchemaErrors, expectedSignature, settled, silentWav, spoken, startReceiver, type Receiver } from './transcription-test-kit';

const SPEC_MEMBERS = [
  'uuid',
  'reference_id',
  'status',
  'stored_file_path',
  'stored_file_url',
  'possible_language',
  'transcription_result',
  'error_message',
  'created_at',
  'processed_at',
  'qa_agent_uuid',
  'coaching_agent_uuid',
];

describe('transcriptions', () => {
  let kit: TestKernel;
  let provider: FakeTranscriptionServer;
  let receiver: Receiver;
  let agent: string;
  let qaAgent: string;
  let greeting: Buffer;

  beforeAll(async () => {
    provider = await startFakeTranscriptionServer();
    receiver = await startReceiver();
    greeting = spoken('Thank you for calling the clinic. I would like an appointment.');
    kit = await startTestKernel({
      plugins: TRANSCRIPTION_PLUGINS,
      config: { transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, attempts: 3, retryBackoffMs: 20, callbackBackoffMs: 20, maxSeconds: 30 } },
    });
    agent = (await kit.api.post('/api/v1/agents').send({ name: 'Reception' }).expect(201)).body.data.agent_uuid;
    qaAgent = (await kit.api.post('/api/v1/agents').send({ name: 'Quality' }).expect(201)).body.data.agent_uuid;
  });
  afterAll(async () => {
    await kit?.stop();
    await provider?.close();
    await receiver?.close();
  });

  const upload = (audio: Buffer, fields: Record<string, string> = {}, name = 'call.wav') => {
    let request = kit.api.post('/api/v1/transcriptions/upload').attach('file', audio, name);
    for (const [field, value] of Object.entries(fields)) request = request.field(field, value);
    return request;
  };

  it('transcribes an uploaded file into the spec shape, a closed voice conversation with one message per segment, and serves the stored audio', async () => {
    provider.script({
      verbose: {
        text: 'Thank you for calling the clinic. I would like an appointment.',
        language: 'english',
        duration: 3.1,
        segments: [
          { start: 0, end: 1.6, text: ' Thank you for calling the clinic.', speaker: 'SPEAKER_00' },
          { start: 1.7, end: 3.1, text: ' I would like an appointment.', speaker: 'SPEAKER_01' },
        ],
      },
    });
    const before = provider.requests.length;
    const created = await upload(greeting, { agent_uuid: agent, reference_id: 'call-1042', language: 'en' }).expect(202);
    expect(created.body).toMatchObject({ success: true, message: 'Transcription queued' });
    const queued = created.body.data;
    for (const member of SPEC_MEMBERS) expect(queued).toHaveProperty(member);
    expect(queued).toMatchObject({
      status: 'queued',
      reference_id: 'call-1042',
      agent_uuid: agent,
      qa_agent_uuid: null,
      coaching_agent_uuid: null,
      format: 'wav',
      size_bytes: greeting.length,
      transcription_result: null,
      error_message: null,
      processed_at: null,
      language: 'en',
      has_callback_secret: false,
    });
    expect(queued.stored_file_path).toContain(`transcriptions/${kit.tenant.uuid}/${queued.uuid}.wav`);
    expect(queued.stored_file_url).toBe(`${new URL(queued.stored_file_url).origin}/api/v1/transcriptions/${queued.uuid}/audio`);
    expect(queued).not.toHaveProperty('callback_secret');
    expect(responseSchemaErrors(kit, 'POST', '/api/v1/transcriptions/upload', created.body)).toBeNull();

    const done = await settled(kit.api, queued.uuid);
    expect(done).toMatchObject({ status: 'completed', possible_language: 'english', error_message: null });
    const read = (await kit.api.get(`/api/v1/transcriptions/${queued.uuid}`).expect(200)).body;
    expect(read).toMatchObject({ success: true, message: 'Transcription retrieved', data: done });
    expect(responseSchemaErrors(kit, 'GET', '/api/v1/transcriptions/:uuid', read)).toBeNull();
    expect(done.transcription_result).toEqual({
      text: 'Thank you for calling the clinic. I would like an appointment.',
      language: 'english',
      duration: 3.1,
      segments: [
        { start: 0, end: 1.6, speaker: 'agent', speaker_label: 'SPEAKER_00', text: 'Thank you for calling the clinic.' },
        { start: 1.7, end: 3.1, speaker: 'customer', speaker_label: 'SPEAKER_01', text: 'I would like an appointment.' },
      ],
    });
    expect(new Date(done.processed_at as string).getTime()).toBeGreaterThanOrEqual(new Date(done.created_at as string).getTime());

    // What the provider got: the stored bytes as sent, with the fields of the OpenAI API.
    const sent = provider.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].authorization).toBe(`Bearer ${provider.apiKey}`);
    expect(sent[0].fields).toEqual({ model: ['whisper-1'], response_format: ['verbose_json'], 'timestamp_granularities[]': ['segment'], language: ['en'] });
    expect(sent[0].file).toMatchObject({ field: 'file', mimeType: 'audio/wav' });
    expect(sent[0].file!.bytes.equals(greeting)).toBe(true);

    // The conversation: voice, the agent's, closed, its messages in order with their speakers.
    const conversation = (await kit.api.get(`/api/v1/conversations/${done.conversation_uuid}`).expect(200)).body.data;
    expect(conversation).toMatchObject({ agent_uuid: agent, channel: 'voice', status: 'closed' });
    const messages = (await kit.api.get(`/api/v1/conversations/${done.conversation_uuid}/messages`).expect(200)).body.data.items;
    const ordered = [...messages].sort((a: { created_at: string }, b: { created_at: string }) => a.created_at.localeCompare(b.created_at));
    expect(ordered.map((message: { sender: string; content: string }) => [message.sender, message.content])).toEqual([
      ['agent', 'Thank you for calling the clinic.'],
      ['customer', 'I would like an appointment.'],
    ]);
    // 1.7 s apart, as the segments were.
    expect(new Date(ordered[1].created_at).getTime() - new Date(ordered[0].created_at).getTime()).toBe(1700);
    const sessions = (await kit.api.get(`/api/v1/sessions?conversation_uuid=${done.conversation_uuid}`).expect(200)).body.data.items;
    expect(sessions).toEqual([expect.objectContaining({ status: 'closed', agent_uuid: agent, message_count: 2 })]);

    const audio = await kit.api.get(`/api/v1/transcriptions/${queued.uuid}/audio`).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    }).expect(200);
    expect(audio.headers['content-type']).toContain('audio/wav');
    expect((audio.body as Buffer).equals(greeting)).toBe(true);
    await kit.client({ host: new URL(queued.stored_file_url).host, token: 'wrong' }).get(`/api/v1/transcriptions/${queued.uuid}/audio`).expect(401);
  });

  it('fetches audio from a URL; qa_agent_uuid chooses the conversation (and so whose evaluation settings apply); without speakers every segment is the customer', async () => {
    receiver.files.set('/recordings/7.wav', greeting);
    provider.script({ verbose: { text: 'Hello there.', language: 'english', duration: 1, segments: [{ start: 0.2, end: 1, text: 'Hello there.' }] } });
    const created = await kit.api
      .post('/api/v1/transcriptions')
      .send({ url: `${receiver.url}/recordings/7.wav`, agent_uuid: agent, qa_agent_uuid: qaAgent, coaching_agent_uuid: agent })
      .expect(202);
    expect(created.body.data).toMatchObject({ status: 'queued', source_url: `${receiver.url}/recordings/7.wav`, qa_agent_uuid: qaAgent, coaching_agent_uuid: agent });
    const done = await settled(kit.api, created.body.data.uuid);
    expect(done.status).toBe('completed');
    expect(done.transcription_result!.segments).toEqual([{ start: 0.2, end: 1, speaker: 'customer', speaker_label: null, text: 'Hello there.' }]);
    const conversation = (await kit.api.get(`/api/v1/conversations/${done.conversation_uuid}`).expect(200)).body.data;
    expect(conversation).toMatchObject({ agent_uuid: qaAgent, channel: 'voice', status: 'closed' });
    expect(provider.requests.at(-1)!.file!.bytes.equals(greeting)).toBe(true);
  });

  it('makes no conversation without an agent', async () => {
    provider.script({ verbose: { text: 'Hello.', segments: [{ start: 0, end: 1, text: 'Hello.' }] } });
    const created = await upload(greeting).expect(202);
    const done = await settled(kit.api, created.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', conversation_uuid: null, agent_uuid: null });
  });

  it('answers 404 with the spec body for an unknown transcription, lists with filters, and deletes the stored audio with it', async () => {
    const unknown = '0190f5a8-3c1e-7d2a-9b8e-4f5a6b7c8d9e';
    const missing = await kit.api.get(`/api/v1/transcriptions/${unknown}`).expect(404);
    expect(missing.body).toEqual({ success: false, message: 'Transcription not found', errors: [expect.any(String)] });
    await kit.api.delete(`/api/v1/transcriptions/${unknown}`).expect(404);

    provider.script({ verbose: { text: 'One.' } }, { verbose: { text: 'Two.' } });
    const first = (await upload(greeting, { reference_id: 'list-1', agent_uuid: qaAgent }).expect(202)).body.data;
    const second = (await upload(greeting, { reference_id: 'list-2' }).expect(202)).body.data;
    await settled(kit.api, first.uuid);
    await settled(kit.api, second.uuid);

    const byReference = (await kit.api.get('/api/v1/transcriptions?reference_id=list-1').expect(200)).body.data;
    expect(byReference.items.map((item: { uuid: string }) => item.uuid)).toEqual([first.uuid]);
    expect(byReference.pagination).toMatchObject({ total: 1 });
    expect(responseSchemaErrors(kit, 'GET', '/api/v1/transcriptions', { success: true, data: byReference })).toBeNull();
    const byAgent = (await kit.api.get(`/api/v1/transcriptions?agent_uuid=${qaAgent}&status=completed`).expect(200)).body.data.items;
    expect(byAgent.map((item: { uuid: string }) => item.uuid)).toContain(first.uuid);
    expect(byAgent.map((item: { uuid: string }) => item.uuid)).not.toContain(second.uuid);
    const later = (await kit.api.get(`/api/v1/transcriptions?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`).expect(200)).body.data;
    expect(later.items).toEqual([]);
    const newest = (await kit.api.get('/api/v1/transcriptions?per_page=1').expect(200)).body.data.items;
    expect(newest.map((item: { uuid: string }) => item.uuid)).toEqual([second.uuid]);
    await kit.api.get('/api/v1/transcriptions?status=done').expect(422);

    await kit.api.delete(`/api/v1/transcriptions/${second.uuid}`).expect(200, { success: true, message: 'Transcription deleted', data: { deleted: true } });
    await kit.api.get(`/api/v1/transcriptions/${second.uuid}`).expect(404);
    await kit.api.get(`/api/v1/transcriptions/${second.uuid}/audio`).expect(404);
    await kit.api.get(`/api/v1/transcriptions/${first.uuid}/audio`).expect(200);
  });

  it('is processing while the provider works, with no database transaction held open meanwhile', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const working = new Promise<void>((resolve) => (arrived = resolve));
    provider.script(async () => {
      arrived();
      await held;
      return { verbose: { text: 'Done at last.', segments: [{ start: 0, end: 1, text: 'Done at last.' }] } };
    });
    const created = await upload(greeting).expect(202);
    await working;
    const during = (await kit.api.get(`/api/v1/transcriptions/${created.body.data.uuid}`).expect(200)).body.data;
    expect(during).toMatchObject({ status: 'processing', transcription_result: null, processed_at: null });
    expect(await transactionsOpenLongerThan(kit, 300, { samples: 4 })).toEqual([]);
    release();
    expect((await settled(kit.api, created.body.data.uuid)).status).toBe('completed');
  });

  it('retries a provider that answers 429, then completes', async () => {
    provider.script({ status: 429, message: 'Rate limit reached' }, { verbose: { text: 'After the wait.', segments: [{ start: 0, end: 1, text: 'After the wait.' }] } });
    const before = provider.requests.length;
    const created = await upload(greeting).expect(202);
    const done = await settled(kit.api, created.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', error_message: null });
    expect(done.transcription_result!.text).toBe('After the wait.');
    expect(provider.requests.length - before).toBe(2);
  });

  it('fails with the provider’s error after the last try of a server that keeps failing, and at once on a 400', async () => {
    provider.script({ status: 500, message: 'model crashed' }, { status: 503, message: 'overloaded' }, { status: 500, message: 'model crashed again' });
    let before = provider.requests.length;
    const failing = await upload(greeting).expect(202);
    const failed = await settled(kit.api, failing.body.data.uuid);
    expect(failed).toMatchObject({ status: 'failed', transcription_result: null, conversation_uuid: null });
    expect(failed.error_message).toBe('The transcription server answered 500: model crashed again (after 3 tries)');
    expect(failed.processed_at).not.toBeNull();
    expect(provider.requests.length - before).toBe(3);

    provider.script({ status: 400, message: 'Audio file might be corrupted or unsupported' });
    before = provider.requests.length;
    const refused = await upload(greeting).expect(202);
    const refusedDone = await settled(kit.api, refused.body.data.uuid);
    expect(refusedDone).toMatchObject({ status: 'failed', error_message: 'The transcription server answered 400: Audio file might be corrupted or unsupported' });
    expect(provider.requests.length - before).toBe(1);
  });

  it('POSTs a Standard-Webhooks-signed callback, retried with the same id; a generated secret is shown once', async () => {
    provider.script({ verbose: { text: 'Signed.', segments: [{ start: 0, end: 1, text: 'Signed.' }] } });
    receiver.statuses.push(500);
    const path = '/callbacks/done';
    const created = await upload(greeting, { callback_url: `${receiver.url}${path}`, reference_id: 'cb-1' }).expect(202);
    const secret = created.body.data.callback_secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created.body.data).toMatchObject({ has_callback_secret: true, callback_url: `${receiver.url}${path}` });
    const shown = (await kit.api.get(`/api/v1/transcriptions/${created.body.data.uuid}`).expect(200)).body.data;
    expect(shown).not.toHaveProperty('callback_secret');
    expect(shown.has_callback_secret).toBe(true);

    const posts = await eventually(
      async () => receiver.posts.filter((post) => post.path === path),
      (found) => found.length >= 2,
      'callback delivered after one failure',
    );
    expect(posts[1].headers['webhook-id']).toBe(posts[0].headers['webhook-id']);
    expect(posts[1].body).toBe(posts[0].body);
    for (const post of posts) {
      const id = post.headers['webhook-id'] as string;
      const timestamp = post.headers['webhook-timestamp'] as string;
      expect(post.headers['webhook-signature']).toBe(expectedSignature(secret, id, timestamp, post.body));
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    }
    const body = JSON.parse(posts[0].body);
    expect(body).toMatchObject({ type: 'transcription_completed', data: { uuid: created.body.data.uuid, status: 'completed', reference_id: 'cb-1' } });
    expect(body.data.transcription_result.text).toBe('Signed.');
    expect(body.data).not.toHaveProperty('callback_secret');

    // A failed one is announced as such, signed with the secret the request gave.
    const given = `whsec_${Buffer.from('a secret of our own, 32 bytes!!').toString('base64')}`;
    provider.script({ status: 400, message: 'bad audio' });
    const failing = await upload(greeting, { callback_url: `${receiver.url}/callbacks/failed`, callback_secret: given }).expect(202);
    expect(failing.body.data).not.toHaveProperty('callback_secret');
    const [failedPost] = await eventually(
      async () => receiver.posts.filter((post) => post.path === '/callbacks/failed'),
      (found) => found.length >= 1,
      'failure callback delivered',
    );
    expect(failedPost.headers['webhook-signature']).toBe(expectedSignature(given, failedPost.headers['webhook-id'] as string, failedPost.headers['webhook-timestamp'] as string, failedPost.body));
    expect(JSON.parse(failedPost.body)).toMatchObject({ type: 'transcription_failed', data: { status: 'failed', error_message: 'The transcription server answered 400: bad audio' } });
  });

  it('delivers transcription_completed to the agent’s webhooks', async () => {
    const hookPath = '/agent-hook';
    await kit.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url: `${receiver.url}${hookPath}`, events: ['transcription_completed'] }).expect(200);
    provider.script({ verbose: { text: 'Hooked.', segments: [{ start: 0, end: 1, text: 'Hooked.' }] } });
    const created = await upload(greeting, { agent_uuid: agent }).expect(202);
    const [post] = await eventually(
      async () => receiver.posts.filter((found) => found.path === hookPath),
      (found) => found.length >= 1,
      'agent webhook delivered',
    );
    expect(JSON.parse(post.body)).toMatchObject({ type: 'transcription_completed', data: { uuid: created.body.data.uuid, status: 'completed', agent_uuid: agent } });
  });

  it('refuses content that is not audio, whatever its name, and audio over the duration limit, with 422 naming what is accepted or the limit', async () => {
    const text = Buffer.from('These are meeting notes, not a recording.\n'.repeat(20));
    const renamed = await upload(text, {}, 'notes.wav').expect(422);
    expect(renamed.body.errors).toEqual({ file: [expect.stringContaining('wav, mp3, m4a, ogg/opus or webm')] });

    receiver.files.set('/notes.mp3', text);
    const fetched = await kit.api.post('/api/v1/transcriptions').send({ url: `${receiver.url}/notes.mp3` }).expect(422);
    expect(fetched.body.errors).toEqual({ url: [expect.stringContaining('wav, mp3, m4a, ogg/opus or webm')] });

    const long = await upload(silentWav(31)).expect(422);
    expect(long.body.errors).toEqual({ file: [expect.stringMatching(/31 seconds long, over the limit of 30 seconds \(TRANSCRIPTION_MAX_SECONDS\)/)] });

    const gone = await kit.api.post('/api/v1/transcriptions').send({ url: `${receiver.url}/nothing.wav` }).expect(422);
    expect(gone.body.errors).toEqual({ url: ['could not be fetched: it answered 404'] });
    expect((await kit.api.get('/api/v1/transcriptions?per_page=100').expect(200)).body.data.items.some((item: { source_url: string | null }) => item.source_url?.endsWith('/notes.mp3'))).toBe(false);
  });

  it('checks the other fields: agents of this tenant, an http(s) callback', async () => {
    const other = await kit.createTenant();
    const foreign = (await other.api.post('/api/v1/agents').send({ name: 'Elsewhere' }).expect(201)).body.data.agent_uuid;
    const res = await upload(greeting, { agent_uuid: foreign, qa_agent_uuid: foreign, coaching_agent_uuid: foreign, callback_url: 'ftp://example.com/x' }).expect(422);
    const notHere = ['is not an agent of this tenant'];
    expect(res.body.errors).toEqual({ agent_uuid: notHere, qa_agent_uuid: notHere, coaching_agent_uuid: notHere, callback_url: ['must be an http(s) URL'] });
    const byUrl = await kit.api.post('/api/v1/transcriptions').send({ url: 'not a url', qa_agent_uuid: foreign }).expect(422);
    expect(byUrl.body.errors).toEqual({ url: ['must be an http(s) URL'], qa_agent_uuid: notHere });
    const secretAlone = await upload(greeting, { callback_secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` }).expect(422);
    expect(secretAlone.body.errors).toEqual({ callback_secret: ['is only used with callback_url'] });
    await kit.api.post('/api/v1/transcriptions').send({ url: 'file:///etc/passwd' }).expect(422);
    await kit.api.post('/api/v1/transcriptions').send({ url: `${receiver.url}/recordings/7.wav`, language: 'english please' }).expect(422);
  });
});
