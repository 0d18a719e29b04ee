import { randomBytes } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import {
  EgressError,
  EgressResponseTooLargeError,
  ServiceUnavailableError,
  SuccessEnvelope,
  ResourceId,
  Type,
  ValidationError,
  defineRoute,
  isHttpUrl,
  type FieldErrors,
  type TenantRef,
} from '../../../core';
import { Transcription } from '../entities';
import { ACCEPTED_FORMATS, maxBytesOf, receiveAudio, takeAudio, type ReceivedAudio, type TakenAudio } from '../intake';
import type { TranscriptionDeps } from '../job/deps';
import { callbackSecretColumn } from '../secret-columns';
import { TRANSCRIPTION_TOPICS } from '../topics';
import { TranscriptionSchema, transcriptionViews } from '../view';

const tags = ['transcriptions'];

const options = {
  reference_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Your own id for the recording (a call id), kept and filterable' })),
  agent_uuid: Type.Optional(ResourceId('agents.agent', 'The agent the recording is of: the conversation is made for it (unless qa_agent_uuid is given)')),
  qa_agent_uuid: Type.Optional(ResourceId('agents.agent', 'The agent whose evaluation settings judge the call: the conversation is made for it (it wins over agent_uuid)')),
  coaching_agent_uuid: Type.Optional(ResourceId('agents.agent', 'An agent kept with the transcription for coaching; it does not choose the conversation')),
  callback_url: Type.Optional(Type.String({ maxLength: 2048, description: 'An http(s) URL that gets a signed POST when the transcription completes or fails' })),
  callback_secret: Type.Optional(
    Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]{24,}={0,2}$',
      description: 'The Standard Webhooks secret for the callback (`whsec_` and base64). Without one, one is generated and shown once in this answer',
    }),
  ),
  language: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$', description: 'The language spoken (ISO 639-1, as `en`), a hint for the provider' })),
};

const UrlBody = Type.Object(
  { url: Type.String({ maxLength: 2048, description: 'An http(s) URL of the audio, fetched once by the server' }), ...options },
  { additionalProperties: false, examples: [{ url: 'https://example.com/calls/1042.mp3', agent_uuid: '0190f5a8-3c1e-7d2a-9b8e-4f5a6b7c8d9e', language: 'en' }] },
);
const UploadFields = Type.Object(options, { additionalProperties: false });

const CreatedSchema = Type.Object({
  ...TranscriptionSchema.properties,
  callback_secret: Type.Optional(Type.String({ description: 'The generated callback secret: shown in this answer only (`has_callback_secret` afterwards)' })),
});

type Options = { [K in keyof typeof options]?: string };

const DESCRIPTION =
  `The audio is checked by its content, not its name (${ACCEPTED_FORMATS}), and its duration measured: other content, a file over TRANSCRIPTION_MAX_FILE_MB ` +
  'or a recording over TRANSCRIPTION_MAX_SECONDS is a 422 naming what is accepted or the limit. It is stored, then transcribed in the background ' +
  '(`queued -> processing -> completed | failed`; poll `GET /api/v1/transcriptions/{uuid}`, or give `callback_url`). A completed transcription becomes a closed ' +
  'conversation on channel `voice` for `qa_agent_uuid`, else `agent_uuid` (none without either), which the evaluation plugin evaluates. ' +
  '`callback_url` gets a Standard-Webhooks-signed POST `{type: transcription_completed | transcription_failed, timestamp, data: transcription}`.';

/** The fields apart from the audio: the agents in this tenant, the callback an http(s) URL (a secret only with one); `problems` found before join them. */
async function checkOptions(deps: TranscriptionDeps, body: Options, problems: FieldErrors = {}): Promise<void> {
  for (const field of ['agent_uuid', 'qa_agent_uuid', 'coaching_agent_uuid'] as const) {
    const uuid = body[field];
    if (uuid && !(await deps.agents.exists(uuid))) problems[field] = ['is not an agent of this tenant'];
  }
  if (body.callback_url !== undefined && !isHttpUrl(body.callback_url)) problems.callback_url = ['must be an http(s) URL'];
  if (body.callback_secret !== undefined && body.callback_url === undefined) problems.callback_secret = ['is only used with callback_url'];
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
  if (!deps.settings.baseUrl) throw new ServiceUnavailableError('Transcription is not configured: set TRANSCRIPTION_BASE_URL');
}

const originOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

/**
 * Records the stored audio and queues the job in one short transaction; a failure there
 * removes the stored file again. Answers the 202 body, with a generated callback secret
 * shown this once.
 */
async function record(deps: TranscriptionDeps, em: EntityManager, tenant: TenantRef, req: Request, body: Options, taken: TakenAudio, source: { name?: string; url?: string }) {
  const secret = body.callback_url ? (body.callback_secret ?? `whsec_${randomBytes(24).toString('base64')}`) : null;
  let row: Transcription;
  try {
    row = await em.transactional(async (tx) => {
      const created = tx.create(Transcription, {
        uuid: taken.uuid,
        referenceId: body.reference_id ?? null,
        agentUuid: body.agent_uuid ?? null,
        qaAgentUuid: body.qa_agent_uuid ?? null,
        coachingAgentUuid: body.coaching_agent_uuid ?? null,
        language: body.language ?? null,
        storageKey: taken.storageKey,
        storedFilePath: taken.storedFilePath,
        format: taken.format,
        mimeType: taken.mimeType,
        sizeBytes: taken.sizeBytes,
        durationSeconds: taken.durationSeconds,
        sourceName: source.name ?? null,
        sourceUrl: source.url ?? null,
        apiOrigin: originOf(req),
        callbackUrl: body.callback_url ?? null,
        callbackSecret: secret ? deps.secrets.encrypt(secret, callbackSecretColumn.context(tenant.uuid)) : null,
      });
      await tx.flush();
      await deps.bus.publish(TRANSCRIPTION_TOPICS.queued, { uuid: created.uuid });
      return created;
    });
  } catch (error) {
    await deps.storage.remove(taken.storageKey).catch(() => {});
    throw error;
  }
  const data = await transcriptionViews(deps.storage, deps.settings.urlTtlSeconds).one(row);
  const generated = secret && !body.callback_secret ? { callback_secret: secret } : {};
  return { success: true, message: 'Transcription queued', data: { ...data, ...generated } };
}

/**
 * Fetches the audio at `url` through the egress guard (its address policy, timeouts and
 * a cap of TRANSCRIPTION_MAX_FILE_MB) into a temporary file. What cannot be fetched is a
 * 422 at `url`.
 */
async function fetchAudio(deps: TranscriptionDeps, url: string, dir: string): Promise<{ path: string; size: number }> {
  const refuse = (message: string) => ValidationError.field('url', message);
  let response;
  try {
    response = await deps.egress.request(url, { maxResponseBytes: maxBytesOf(deps.settings), timeoutMs: 120_000 });
  } catch (error) {
    if (error instanceof EgressResponseTooLargeError) throw refuse(`is larger than the limit of ${deps.settings.maxFileMb} MiB (TRANSCRIPTION_MAX_FILE_MB)`);
    if (error instanceof EgressError) throw refuse(`could not be fetched: ${error.message}`);
    throw error;
  }
  if (response.status < 200 || response.status >= 300) throw refuse(`could not be fetched: it answered ${response.status}`);
  const file = path.join(dir, 'audio');
  await writeFile(file, response.body);
  return { path: file, size: response.body.length };
}

/**
 * `POST /api/v1/transcriptions` (JSON, the audio at `url`) and
 * `POST /api/v1/transcriptions/upload` (multipart, the audio as `file`): two paths
 * because a route of the kernel takes JSON or multipart, not both. Both hold no
 * transaction while the audio is fetched, measured and stored; the upload's bytes go
 * from the request straight into storage, and one short transaction records the row.
 */
export function createRoutes(deps: TranscriptionDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/transcriptions',
      summary: 'Transcribe audio found at a URL',
      description: `JSON with the audio's \`url\` (http or https, fetched once through the server's egress guard). To send the file itself, use \`POST /api/v1/transcriptions/upload\`. ${DESCRIPTION}`,
      tags,
      body: UrlBody,
      status: 202,
      transactional: false,
      errors: [503],
      response: SuccessEnvelope(CreatedSchema),
      handler: async ({ body, em, tenant, req }) => {
        const url = body.url.trim();
        await checkOptions(deps, body, isHttpUrl(url) ? {} : { url: ['must be an http(s) URL'] });
        const dir = await mkdtemp(path.join(tmpdir(), 'transcription-url-'));
        try {
          const file = await fetchAudio(deps, url, dir);
          const taken = await takeAudio(deps, tenant, file, 'url');
          return await record(deps, em, tenant, req, body, taken, { url });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/transcriptions/upload',
      summary: 'Transcribe an uploaded audio file',
      description: `A \`multipart/form-data\` upload: the audio as \`file\`, the options as text fields. A file over HTTP_UPLOAD_LIMIT is a 413. ${DESCRIPTION}`,
      tags,
      // Streamed into storage as it arrives (intake.ts receiveAudio), never spooled first.
      upload: { field: 'file', description: `The audio (${ACCEPTED_FORMATS})`, receive: (incoming) => receiveAudio(deps, incoming) },
      body: UploadFields,
      status: 202,
      transactional: false,
      errors: [413, 503],
      response: SuccessEnvelope(CreatedSchema),
      handler: async ({ body, em, tenant, req, file }) => {
        // Stored already, under a key of its own: removed by the kernel when the response ends, unless kept here.
        const received = file!.received as ReceivedAudio;
        await checkOptions(deps, body);
        const taken = await received.keep(tenant);
        return record(deps, em, tenant, req, body, taken, { name: file!.originalName });
      },
    }),
  ];
}
