import { InboundMediaError, type InboundAudioTranscriber } from '../channels';
import { SpeechToTextError, speechToTextRef, type SpeechToText } from '../transcriptions';

const speechOf = (deps: Readonly<Record<string, unknown>>) => (deps as { speech: SpeechToText }).speech;

/**
 * The channels plugin's voice-note transcriber, through the transcriptions plugin's
 * provider: unavailable while TRANSCRIPTION_BASE_URL is unset (channels then answers a
 * placeholder without trying), its size limit TRANSCRIPTION_MAX_FILE_MB, and its failures
 * told as channels retries them (the provider's 429, 5xx or network again later; audio
 * it cannot read or a refusal never).
 */
export const voiceNoteTranscriber: InboundAudioTranscriber = {
  deps: { speech: speechToTextRef },
  available: (deps) => speechOf(deps).available(),
  maxBytes: (deps) => speechOf(deps).maxBytes,
  async transcribe(audio, deps) {
    try {
      const { text } = await speechOf(deps).transcribe({ bytes: audio.bytes });
      return { text };
    } catch (error) {
      if (error instanceof SpeechToTextError) throw new InboundMediaError(error.message, error.retryable);
      throw error;
    }
  },
};
