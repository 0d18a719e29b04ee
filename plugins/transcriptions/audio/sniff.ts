import type { AudioFormat, SniffedAudio } from './audio-types';

/**
 * The format of a recording by its first bytes. A name or a declared content type says
 * what a client believes, these bytes say what the file is: a text file renamed `.wav`
 * is refused here, an MP3 named `.wav` is taken as the MP3 it is.
 */
export function sniff(head: Buffer): SniffedAudio | null {
  const format = wav(head) ?? mp3(head) ?? mp4Audio(head) ?? ogg(head) ?? webm(head);
  return format ? { format, mimeType: MIME_TYPES[format] } : null;
}

export const MIME_TYPES: Record<AudioFormat, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  webm: 'audio/webm',
};

const ascii = (head: Buffer, at: number, length: number): string => (head.length >= at + length ? head.toString('latin1', at, at + length) : '');

function wav(head: Buffer): AudioFormat | null {
  return ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WAVE' ? 'wav' : null;
}

function mp3(head: Buffer): AudioFormat | null {
  // An ID3v2 tag (major version 2 to 4) comes before the frames; it may be megabytes long
  // (cover art), so the frames behind it are not looked for.
  if (ascii(head, 0, 3) === 'ID3' && head.length >= 4 && head[3] >= 2 && head[3] <= 4) return 'mp3';
  const frame = mpegFrameLength(head, 0);
  if (frame === null) return null;
  // Two bytes of 0xFFE. happen in other files; a second header where the first frame ends
  // (when the head reaches it) makes it MPEG audio.
  if (head.length >= frame + 4 && mpegFrameLength(head, frame) === null) return null;
  return 'mp3';
}

// Kilobits per second by bitrate index, for [MPEG-1, MPEG-2/2.5] x [layer II, layer III].
const BITRATES: Record<string, number[]> = {
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES = { mpeg1: [44100, 48000, 32000], mpeg2: [22050, 24000, 16000], mpeg25: [11025, 12000, 8000] };

/** The length in bytes of the MPEG audio layer II/III frame whose header is at `at`; null when none is there. */
function mpegFrameLength(head: Buffer, at: number): number | null {
  if (head.length < at + 4 || head[at] !== 0xff || (head[at + 1] & 0xe0) !== 0xe0) return null;
  const versionBits = (head[at + 1] >> 3) & 3; // 0: 2.5, 1: reserved, 2: 2, 3: 1
  const layerBits = (head[at + 1] >> 1) & 3; // 1: III, 2: II (3: I and 0 are not taken)
  const bitrateIndex = head[at + 2] >> 4;
  const rateIndex = (head[at + 2] >> 2) & 3;
  if (versionBits === 1 || (layerBits !== 1 && layerBits !== 2) || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const mpeg1 = versionBits === 3;
  const layer = layerBits === 1 ? 3 : 2;
  const kbps = BITRATES[`${mpeg1 ? 1 : 2}-${layer}`][bitrateIndex];
  const sampleRate = (mpeg1 ? SAMPLE_RATES.mpeg1 : versionBits === 2 ? SAMPLE_RATES.mpeg2 : SAMPLE_RATES.mpeg25)[rateIndex];
  const padding = (head[at + 2] >> 1) & 1;
  const samplesPerFrame = layer === 3 && !mpeg1 ? 576 : 1152;
  return Math.floor((samplesPerFrame / 8) * kbps * 1000 / sampleRate) + padding;
}

// Brands of ISO base media files that carry audio as phones, browsers and encoders write
// it (.m4a, .m4b, audio-only .mp4 and DASH segments).
const MP4_AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'mp41', 'mp42', 'isom', 'iso2', 'iso4', 'iso5', 'iso6', 'dash']);

function mp4Audio(head: Buffer): AudioFormat | null {
  if (ascii(head, 4, 4) !== 'ftyp') return null;
  const boxEnd = Math.min(head.readUInt32BE(0), head.length);
  if (MP4_AUDIO_BRANDS.has(ascii(head, 8, 4))) return 'm4a';
  // Then the compatible brands, after the major brand and its minor version.
  for (let at = 16; at + 4 <= boxEnd; at += 4) if (MP4_AUDIO_BRANDS.has(ascii(head, at, 4))) return 'm4a';
  return null;
}

function ogg(head: Buffer): AudioFormat | null {
  if (ascii(head, 0, 4) !== 'OggS' || head.length < 27) return null;
  // The first page's payload (after its 27-byte header and segment table) names the codec.
  const payload = 27 + head[26];
  return ascii(head, payload, 8) === 'OpusHead' || ascii(head, payload, 7) === '\x01vorbis' ? 'ogg' : null;
}

const EBML_HEADER = 0x1a45dfa3;
const EBML_DOC_TYPE = 0x4282;

function webm(head: Buffer): AudioFormat | null {
  if (head.length < 4 || head.readUInt32BE(0) !== EBML_HEADER) return null;
  const headerSize = vint(head, 4, false);
  if (!headerSize) return null;
  const end = Math.min(head.length, 4 + headerSize.length + headerSize.value);
  for (let at = 4 + headerSize.length; at < end; ) {
    const id = vint(head, at, true);
    const size = id && vint(head, at + id.length, false);
    if (!id || !size) return null;
    const data = at + id.length + size.length;
    if (id.value === EBML_DOC_TYPE) return head.toString('latin1', data, Math.min(data + size.value, head.length)).replace(/\0+$/, '') === 'webm' ? 'webm' : null;
    at = data + size.value;
  }
  return null;
}

/** An EBML variable-length integer at `at`: its value (with the length marker when it is an element id) and its length. */
function vint(head: Buffer, at: number, keepMarker: boolean): { value: number; length: number } | null {
  if (at >= head.length || head[at] === 0) return null;
  const length = Math.clz32(head[at]) - 23;
  if (length > 8 || at + length > head.length) return null;
  let value = keepMarker ? head[at] : head[at] & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + head[at + i];
  return { value, length };
}
