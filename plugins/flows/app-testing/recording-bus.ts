import { newUuid, type BusService, type PublishOptions } from '../../../core';

export interface PublishedMessage {
  id: string;
  topic: string;
  payload: unknown;
  options: PublishOptions;
}

/** A bus for a trigger's deploy and undeploy hooks: what they publish is recorded, nothing is delivered. */
export interface RecordingBus extends BusService {
  readonly published: PublishedMessage[];
}

export function recordingBus(): RecordingBus {
  const published: PublishedMessage[] = [];
  const record = (topic: string, payload: unknown, options: PublishOptions = {}) => {
    const id = newUuid();
    // Stored as the outbox would store it: JSON.
    published.push({ id, topic, payload: JSON.parse(JSON.stringify(payload ?? null)), options });
    return id;
  };
  return {
    published,
    publish: async (topic, payload, options) => record(topic, payload, options),
    async publishMany(topic, payloads, options) {
      return payloads.map((payload) => record(topic, payload, options));
    },
    consume() {
      throw new Error('app code registers no bus consumers: its plugin does, in init');
    },
    consumeBatch() {
      throw new Error('app code registers no bus consumers: its plugin does, in init');
    },
  };
}
