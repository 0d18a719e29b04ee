import path from 'node:path';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { modelAnswer, putOverride } from '../evaluation/evaluation-test-kit';
import { startFakeTranscriptionServer, type FakeTranscriptionServer } from './fake-transcription-server';
import { TRANSCRIPTION_PLUGINS, eventually, settled, spoken } from './transcription-test-kit';

describe('a transcription evaluated', () => {
  let kit: TestKernel;
  let provider: FakeTranscriptionServer;
  let model: FakeLlmServer;
  beforeAll(async () => {
    provider = await startFakeTranscriptionServer();
    model = await startFakeLlmServer({ fallback: modelAnswer() });
    kit = await startTestKernel({
      plugins: [...TRANSCRIPTION_PLUGINS, path.resolve(__dirname, '../../../plugins/evaluation')],
      config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0, transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey } },
    });
  });
  afterAll(async () => {
    await kit?.stop();
    await provider?.close();
    await model?.close();
  });

  it('is judged by the evaluation settings of qa_agent_uuid, whose session it is', async () => {
    const agent = (await kit.api.post('/api/v1/agents').send({ name: 'Reception' }).expect(201)).body.data.agent_uuid;
    const qa = (await kit.api.post('/api/v1/agents').send({ name: 'Quality' }).expect(201)).body.data.agent_uuid;
    await putOverride(kit.api, qa, { is_active: true });
    provider.script({
      verbose: {
        text: 'Good morning, dental clinic. I need to move my appointment to Friday. Of course, Friday at ten works.',
        segments: [
          { start: 0, end: 1.5, text: 'Good morning, dental clinic.', speaker: 'A' },
          { start: 1.6, end: 3.4, text: 'I need to move my appointment to Friday.', speaker: 'B' },
          { start: 3.5, end: 5, text: 'Of course, Friday at ten works.', speaker: 'A' },
        ],
      },
    });
    const created = await kit.api.post('/api/v1/transcriptions/upload').attach('file', spoken('Good morning, dental clinic.'), 'call.wav').field('agent_uuid', agent).field('qa_agent_uuid', qa).expect(202);
    const done = await settled(kit.api, created.body.data.uuid);
    expect(done.status).toBe('completed');
    const [session] = (await kit.api.get(`/api/v1/sessions?conversation_uuid=${done.conversation_uuid}`).expect(200)).body.data.items;
    expect(session).toMatchObject({ agent_uuid: qa, channel: 'voice', status: 'closed', message_count: 3 });
    const evaluation = await eventually(
      async () => {
        const res = await kit.api.get(`/api/v1/sessions/${session.uuid}/evaluation`);
        return res.status === 200 ? res.body.data : null;
      },
      (found) => found !== null,
      'the session evaluated',
    );
    expect(evaluation).toMatchObject({ agent_uuid: qa, conversation_uuid: done.conversation_uuid, settings_source: 'agent' });
    // The model read the transcript with each speaker's words.
    const asked = JSON.stringify(model.requests.map((request) => request.body?.messages ?? []));
    expect(asked).toContain('I need to move my appointment to Friday.');
    expect(asked).toContain('Of course, Friday at ten works.');
  });
});
