import { configRef, coreServices, createServiceFactory, createServiceRef, definePlugin } from '../../core';
import { agentDirectoryRef, agentWebhookEvents } from '../agents';
import { conversationWriterRef } from '../conversations';
import { fileStorageRef } from '../storage';
import { contributeImportMediaReader } from '../tables';
import { audio } from './audio';
import { transcriptionsConfig } from './config';
import { Transcription } from './entities';
import { scheduleIncomingSweep } from './incoming-sweep';
import { registerCallbackJob } from './job/callback-job';
import type { TranscriptionDeps } from './job/deps';
import { registerTranscriptionJob } from './job/process-job';
import { Migration0001Transcriptions } from './migrations/0001-transcriptions';
import { createRoutes } from './routes/create-routes';
import { readRoutes } from './routes/read-routes';
import { callbackSecretColumn } from './secret-columns';
import { audioTableReader } from './table-import/audio-table-reader';
import { createSpeechToText, speechToTextRef } from './speech-to-text';
import { transcriptionCompletedEvent } from './topics';

// The public API of the transcriptions plugin: what other plugins may import.
export { TRANSCRIPTION_TOPICS, type TranscriptionCompletedEvent } from './topics';
export { TranscriptionSchema, type TranscriptionJson } from './view';
// Speech to text without a stored transcription: a channel's voice notes (plugins/channels-transcriptions).
export { speechToTextRef, SpeechToTextError, type SpeechToText } from './speech-to-text';

const depsRef = createServiceRef<TranscriptionDeps>('transcriptions.deps');
// Audio table imports: the tables plugin's file import reads audio through this plugin's provider.
const tableImport = contributeImportMediaReader(audioTableReader);

/**
 * Transcriptions: audio (an upload or a URL) checked by content, stored through the
 * storage plugin, transcribed by an OpenAI-compatible speech-to-text server in the
 * background (long audio cut at silences and stitched), turned into a closed `voice`
 * conversation that the evaluation plugin evaluates, and announced to a signed
 * completion callback and to agent webhooks (`transcription_completed`).
 */
export default definePlugin({
  entities: [Transcription],
  migrations: [{ name: '0001-transcriptions', class: Migration0001Transcriptions }],
  config: transcriptionsConfig,
  contributes: [agentWebhookEvents.add(transcriptionCompletedEvent), ...tableImport.contributes],
  services: [
    createServiceFactory({
      service: depsRef,
      deps: {
        bus: coreServices.bus,
        egress: coreServices.egress,
        logger: coreServices.logger,
        secrets: coreServices.secrets,
        tenants: coreServices.tenant,
        agents: agentDirectoryRef,
        conversations: conversationWriterRef,
        storage: fileStorageRef,
        config: configRef(transcriptionsConfig),
      },
      factory: ({ config, ...deps }) => ({ ...deps, audio, settings: config.all() }),
    }),
    createServiceFactory({
      service: speechToTextRef,
      deps: { egress: coreServices.egress, config: configRef(transcriptionsConfig) },
      factory: ({ egress, config }) => createSpeechToText({ egress, audio, settings: config.all() }),
    }),
  ],
  deps: { ...tableImport.deps, http: coreServices.http, secrets: coreServices.secrets, lifecycle: coreServices.lifecycle, deps: depsRef },
  init(resolved) {
    const { http, secrets, lifecycle, deps } = resolved;
    tableImport.init(resolved);
    secrets.declareColumn(callbackSecretColumn);
    for (const route of [...createRoutes(deps), ...readRoutes(deps)]) http.route(route);
    registerTranscriptionJob(deps);
    registerCallbackJob(deps);
    scheduleIncomingSweep({ lifecycle, storage: deps.storage, logger: deps.logger, maxAgeMinutes: deps.settings.incomingMaxAgeMinutes });
  },
});
