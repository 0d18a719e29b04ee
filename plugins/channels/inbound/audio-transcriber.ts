import { contributeWithDeps, contributedDepsRef, createExtensionPoint, type DepsMap } from '../../../core';
import type { FetchedMedia } from '../driver';

/**
 * What turns a customer's voice note into the words the agent answers. One plugin fills
 * this slot (channels-transcriptions, with the transcriptions plugin's speech-to-text);
 * without one, audio is recorded as it came and the agent is told a voice message could
 * not be listened to. Every method is called on the bus with no transaction open; `deps`
 * are the services the transcriber named, as its plugin handed them over.
 */
export interface InboundAudioTranscriber {
  /** Whether it can transcribe now (its provider is configured); false is as if the slot were empty. */
  available(deps: Readonly<Record<string, unknown>>): boolean;
  /** The largest audio it takes, in bytes: a download stops there. */
  maxBytes(deps: Readonly<Record<string, unknown>>): number;
  /** The words spoken ('' for none heard). Throws InboundMediaError (`retryable` or not); anything else is retried as a failure of the moment. */
  transcribe(audio: FetchedMedia, deps: Readonly<Record<string, unknown>>): Promise<{ text: string }>;
  deps?: DepsMap;
}

export const inboundAudioTranscriber = createExtensionPoint<InboundAudioTranscriber>({ id: 'channels.inboundAudioTranscriber', single: true });

/** Where the plugin filling the slot hands over the services its transcriber names (one per kernel). */
export const inboundAudioTranscriberDepsRef = contributedDepsRef<InboundAudioTranscriber>('channels.inboundAudioTranscriberDeps');

/** The `definePlugin` members of the plugin that fills the slot: `definePlugin({ ...contributeInboundAudioTranscriber(transcriber) })`. */
export const contributeInboundAudioTranscriber = (transcriber: InboundAudioTranscriber) => contributeWithDeps(inboundAudioTranscriber, transcriber, inboundAudioTranscriberDepsRef);

/** The slot as the channels plugin uses it: null when empty or not available now, else the transcriber with its deps. */
export interface AudioTranscription {
  current(): { maxBytes: number; transcribe(audio: FetchedMedia): Promise<{ text: string }> } | null;
}

export function audioTranscription(transcriber: InboundAudioTranscriber | undefined, depsOf: (item: InboundAudioTranscriber) => Readonly<Record<string, unknown>>): AudioTranscription {
  return {
    current() {
      if (!transcriber) return null;
      // Read when used: the filling plugin hands its deps over in its init, after this plugin's.
      const deps = transcriber.deps ? depsOf(transcriber) : {};
      if (!transcriber.available(deps)) return null;
      return { maxBytes: transcriber.maxBytes(deps), transcribe: (audio) => transcriber.transcribe(audio, deps) };
    },
  };
}
