import { definePlugin } from '../../core';
import { contributeInboundAudioTranscriber } from '../channels';
import { voiceNoteTranscriber } from './voice-note-transcriber';

/**
 * The link between two areas (like channels-outreach): the channels plugin receives voice
 * notes, the transcriptions plugin turns speech into text; this plugin fills channels'
 * `inboundAudioTranscriber` slot with the transcriptions provider, so a customer's voice
 * note becomes the words the agent answers. An install without either still boots the other.
 */
export default definePlugin({
  ...contributeInboundAudioTranscriber(voiceNoteTranscriber),
});
