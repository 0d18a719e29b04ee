import { newUuid } from '../../core';
import { fileStorageRef, type FileStorage } from '../storage';
import type { BodyFixtures, ResourceFixtures } from '../../core/testing';

/**
 * A call of the owner: an agent and a `voice` conversation made over the API, the call
 * row (and a recording) written straight into the database and DATA_DIR (placing one
 * over the API asks a provider, which the sweep's kernel cannot reach). The call is
 * still ringing and not yet placed at the provider: the owner's live actions answer 409
 * (not in progress) or, for hangup, 200, never 404.
 */
export const fixtures: ResourceFixtures = {
  'calls.call': async (owner, kit) => {
    const agent = (await owner.api.post('/api/v1/agents').send({ name: 'sweep' }).expect(201)).body.data.agent_uuid as string;
    const conversation = (await owner.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'voice' }).expect(201)).body.data.uuid as string;
    const uuid = newUuid();
    const recording = `recordings/${owner.tenant.uuid}/${uuid}.wav`;
    await kit.kernel.container.resolve<FileStorage>(fileStorageRef.id).put(recording, Buffer.from('RIFF'), { contentType: 'audio/wav' });
    await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(
        'insert into calls (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, channel_uuid, connection_uuid, provider, direction, from_number, to_number, status, recording_path, callback_origin, metadata) ' +
          "values (?, ?, now(), now(), ?, ?, ?, ?, 'twilio', 'outbound', '+14155550100', '+14155550123', 'ringing', ?, 'http://127.0.0.1', '{}')",
        [uuid, owner.tenant.uuid, conversation, agent, newUuid(), newUuid(), recording],
      );
    return { 'agents.agent': agent, 'conversations.conversation': conversation, 'calls.call': conversation };
  },
};

/** Bodies the sweep cannot guess: a destination that passes validation. */
export const bodies: BodyFixtures = {
  'POST /api/v1/call/:conversation_uuid/forward': () => ({ destination: '+14155550123' }),
  'POST /api/v1/call/:conversation_uuid/say': () => ({ text: 'sweep' }),
};
