import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { audio } from '../../../../plugins/transcriptions/audio';
import { encode, requireTools, scratchDir, speak } from './audio-fixtures';

/** The first bytes of a file, as the plugin hands them to sniff. */
const head = (path: string, bytes = 64): Buffer => readFileSync(path).subarray(0, bytes);

describe('audio.sniff', () => {
  const scratch = scratchDir();
  const file = (name: string) => join(scratch.dir, name);
  let wav: string;

  beforeAll(() => {
    requireTools('espeak-ng', 'ffmpeg');
    wav = speak(file('speech.wav'), 'Hello, this is a recording to sniff.');
  });
  afterAll(() => scratch.remove());

  it.each([
    ['WAV from espeak-ng', () => wav, 'wav', 'audio/wav'],
    ['MP3 with an ID3 tag', () => encode(wav, file('tagged.mp3'), ['-c:a', 'libmp3lame']), 'mp3', 'audio/mpeg'],
    ['MP3 of bare frames (no ID3, no Xing)', () => encode(wav, file('bare.mp3'), ['-c:a', 'libmp3lame', '-id3v2_version', '0', '-write_xing', '0']), 'mp3', 'audio/mpeg'],
    ['MPEG layer II', () => encode(wav, file('layer2.mp2'), ['-c:a', 'mp2', '-ar', '44100']), 'mp3', 'audio/mpeg'],
    ['M4A (AAC)', () => encode(wav, file('speech.m4a'), ['-c:a', 'aac']), 'm4a', 'audio/mp4'],
    ['audio-only MP4 (isom brand)', () => encode(wav, file('speech.mp4'), ['-c:a', 'aac'], 'mp4'), 'm4a', 'audio/mp4'],
    ['Ogg Opus', () => encode(wav, file('speech.opus'), ['-c:a', 'libopus'], 'ogg'), 'ogg', 'audio/ogg'],
    ['Ogg Vorbis', () => encode(wav, file('speech.ogg'), ['-c:a', 'libvorbis']), 'ogg', 'audio/ogg'],
    ['WebM Opus', () => encode(wav, file('speech.webm'), ['-c:a', 'libopus']), 'webm', 'audio/webm'],
  ])('recognises %s by its content', (_name, make, format, mimeType) => {
    expect(audio.sniff(head(make()))).toEqual({ format, mimeType });
  });

  it('reads MPEG frames and MP4 brands themselves (the fixtures above are what they claim)', () => {
    const bare = head(file('bare.mp3'));
    expect([bare[0], bare[1] & 0xe0]).toEqual([0xff, 0xe0]);
    expect(head(file('layer2.mp2'))[0]).toBe(0xff);
    expect(head(file('speech.mp4')).toString('latin1', 4, 12)).toBe('ftypisom');
    expect(head(file('speech.m4a')).toString('latin1', 4, 12)).toBe('ftypM4A ');
  });

  it('goes by content, not by name: an MP3 named .wav is an MP3', () => {
    const mp3 = encode(wav, file('real.mp3'), ['-c:a', 'libmp3lame']);
    copyFileSync(mp3, file('renamed.wav'));
    expect(audio.sniff(head(file('renamed.wav')))?.format).toBe('mp3');
  });

  it('refuses a text file, even one named .wav', () => {
    writeFileSync(file('notes.wav'), 'RIFF is how a WAV file starts, but this is only text about it.\n'.repeat(4));
    expect(audio.sniff(head(file('notes.wav')))).toBeNull();
    expect(audio.sniff(Buffer.from('{"audio": "not really"}'))).toBeNull();
  });

  it('refuses containers without the audio it takes: Ogg FLAC, Matroska, a video-only brand', () => {
    const oggFlac = encode(wav, file('speech.oga'), ['-c:a', 'flac'], 'ogg');
    expect(head(oggFlac).toString('latin1', 0, 4)).toBe('OggS');
    expect(audio.sniff(head(oggFlac))).toBeNull();

    const matroska = encode(wav, file('speech.mka'), ['-c:a', 'libopus'], 'matroska');
    expect(head(matroska).readUInt32BE(0)).toBe(0x1a45dfa3);
    expect(audio.sniff(head(matroska))).toBeNull();

    const quicktime = Buffer.alloc(64);
    quicktime.writeUInt32BE(20, 0);
    quicktime.write('ftypqt  \0\0\0\0qt  ', 4, 'latin1');
    expect(audio.sniff(quicktime)).toBeNull();
  });

  it('refuses bytes that only look like an MPEG frame sync', () => {
    // 0xFFE.. then a header with a reserved layer, then one with a reserved sample rate.
    expect(audio.sniff(Buffer.from([0xff, 0xf9, 0x50, 0x80, ...Buffer.alloc(60)]))).toBeNull(); // ADTS AAC: layer bits 00
    expect(audio.sniff(Buffer.from([0xff, 0xfb, 0x9c, 0x00, ...Buffer.alloc(60)]))).toBeNull();
    // A valid first header whose frame is not followed by a second one.
    const lone = Buffer.alloc(600);
    lone.set([0xff, 0xfb, 0x90, 0x00]); // MPEG-1 layer III, 128 kbit/s, 44.1 kHz: 417-byte frames
    expect(audio.sniff(lone)).toBeNull();
    lone.set([0xff, 0xfb, 0x90, 0x00], 417);
    expect(audio.sniff(lone)?.format).toBe('mp3');
  });

  it('refuses what is too short to tell', () => {
    expect(audio.sniff(Buffer.alloc(0))).toBeNull();
    expect(audio.sniff(Buffer.from('RIFF'))).toBeNull();
    expect(audio.sniff(Buffer.from('OggS'))).toBeNull();
  });
});
