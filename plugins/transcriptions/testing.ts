import { newUuid } from '../../core';
import type { ResourceFixtures } from '../../core/testing';
import { fileStorageRef, type FileStorage } from '../storage';

/**
 * A completed transcription of the owner, written straight into the database and its
 * file into the kernel's store (the storage plugin's service): making
 * one over the API needs a transcription server and audio the sweep's kernel does not have.
 */
export const fixtures: ResourceFixtures = {
  'transcriptions.transcription': async (owner, kit) => {
    const uuid = newUuid();
    const key = `transcriptions/${owner.tenant.uuid}/${uuid}.wav`;
    await kit.kernel.container.resolve<FileStorage>(fileStorageRef.id).put(key, Buffer.from('RIFF'), { contentType: 'audio/wav' });
    await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(
        'insert into transcriptions (uuid, tenant_uuid, created_at, updated_at, status, storage_key, stored_file_path, format, mime_type, size_bytes, duration_seconds, api_origin) ' +
          "values (?, ?, now(), now(), 'completed', ?, ?, 'wav', 'audio/wav', 4, 1, 'http://127.0.0.1')",
        [uuid, owner.tenant.uuid, key, key],
      );
    return { 'transcriptions.transcription': uuid };
  },
};

const NEEDS_PROVIDER =
  'the owner’s own request needs a transcription server and audio, which the sweep’s kernel lacks; agents of another tenant are refused with 422 at the member ' +
  '(test/plugins/transcriptions/transcriptions.test.ts, “checks the other fields”)';

/** Members no body the sweep sends can reach. */
export const unswept: Record<string, string> = {
  'POST /api/v1/transcriptions agent_uuid': NEEDS_PROVIDER,
  'POST /api/v1/transcriptions qa_agent_uuid': NEEDS_PROVIDER,
  'POST /api/v1/transcriptions coaching_agent_uuid': NEEDS_PROVIDER,
  'POST /api/v1/transcriptions/upload agent_uuid': `a multipart upload (the sweep sends JSON); ${NEEDS_PROVIDER}`,
  'POST /api/v1/transcriptions/upload qa_agent_uuid': `a multipart upload (the sweep sends JSON); ${NEEDS_PROVIDER}`,
  'POST /api/v1/transcriptions/upload coaching_agent_uuid': `a multipart upload (the sweep sends JSON); ${NEEDS_PROVIDER}`,
};
