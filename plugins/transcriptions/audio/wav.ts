import { open, type FileHandle } from 'node:fs/promises';
import { AudioError } from './audio-types';

/** What a WAV file's header says, and where its samples are. */
export interface WavInfo {
  /** 1 integer PCM, 3 IEEE float (the sub-format of WAVE_FORMAT_EXTENSIBLE files). */
  encoding: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes of one sample of every channel. */
  blockAlign: number;
  dataOffset: number;
  /** Whole frames only: a partial frame at the end is not audio. */
  frames: number;
}

const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const UNKNOWN_SIZE = 0xffffffff;

/**
 * Reads the header chunks of a WAV file (fmt, data, and whatever else an editor or
 * recorder put around them: LIST, fact, bext, JUNK...) without reading its samples.
 * A file whose data chunk claims more bytes than the file holds is truncated: refused.
 * A data size of 0xFFFFFFFF is what recorders that stream write (they cannot come back to
 * fill it in): the samples then run to the end of the file.
 */
export async function readWavInfo(path: string): Promise<WavInfo> {
  const file = await openForReading(path);
  try {
    const { size } = await file.stat();
    return await parseWavInfo((at, length) => readAt(file, at, length), size);
  } finally {
    await file.close();
  }
}

/**
 * The same, from the first bytes of a file of `size` bytes (an upload measured as it
 * streams to storage): null when its header chunks run past `head`, for the caller to
 * read the whole file instead.
 */
export async function wavInfoOfHead(head: Buffer, size: number): Promise<WavInfo | null> {
  const beyond = Symbol('beyond the head');
  try {
    return await parseWavInfo(async (at, length) => {
      // Short only where the file itself ends; the head's end is not the file's.
      if (at + length > head.length && head.length < size) throw beyond;
      return head.subarray(at, at + length);
    }, size);
  } catch (error) {
    if (error === beyond) return null;
    throw error;
  }
}

async function parseWavInfo(readAt: (position: number, length: number) => Promise<Buffer>, size: number): Promise<WavInfo> {
  const riff = await readAt(0, 12);
  if (riff.length < 12 || riff.toString('latin1', 0, 4) !== 'RIFF' || riff.toString('latin1', 8, 12) !== 'WAVE') throw new AudioError('this file is not a WAV file');
  let fmt: Omit<WavInfo, 'dataOffset' | 'frames'> | null = null;
  for (let at = 12; ; ) {
    const chunk = await readAt(at, 8);
    if (chunk.length < 8) throw new AudioError(fmt ? 'this WAV file has no data chunk (it may be truncated)' : 'this WAV file has no fmt chunk (it may be truncated)');
    const id = chunk.toString('latin1', 0, 4);
    const chunkSize = chunk.readUInt32LE(4);
    const body = at + 8;
    if (id === 'fmt ') fmt = parseFmt(await readAt(body, Math.min(chunkSize, 40)));
    else if (id === 'data') {
      if (!fmt) throw new AudioError('this WAV file has its data before its fmt chunk');
      const available = size - body;
      if (chunkSize !== UNKNOWN_SIZE && chunkSize > available) {
        throw new AudioError(`this WAV file is truncated: its data chunk declares ${chunkSize} bytes, the file holds ${available}`);
      }
      const bytes = chunkSize === UNKNOWN_SIZE ? available : chunkSize;
      return { ...fmt, dataOffset: body, frames: Math.floor(bytes / fmt.blockAlign) };
    }
    // Chunks are padded to an even length.
    at = body + chunkSize + (chunkSize % 2);
  }
}

function parseFmt(body: Buffer): Omit<WavInfo, 'dataOffset' | 'frames'> {
  if (body.length < 16) throw new AudioError('this WAV file has a fmt chunk too short to read (it may be truncated)');
  let encoding = body.readUInt16LE(0);
  // WAVE_FORMAT_EXTENSIBLE: the real encoding is the first two bytes of the sub-format GUID.
  if (encoding === WAVE_FORMAT_EXTENSIBLE && body.length >= 26) encoding = body.readUInt16LE(24);
  const channels = body.readUInt16LE(2);
  const sampleRate = body.readUInt32LE(4);
  const blockAlign = body.readUInt16LE(12);
  const bitsPerSample = body.readUInt16LE(14);
  if (channels === 0 || sampleRate === 0 || blockAlign === 0) throw new AudioError('this WAV file has an invalid fmt chunk (no channels, sample rate or block size)');
  return { encoding, channels, sampleRate, bitsPerSample, blockAlign };
}

/** True when the pure TypeScript cutter reads these samples: 16-bit integer PCM. */
export const isPcm16 = (info: WavInfo): boolean => info.encoding === 1 && info.bitsPerSample === 16 && info.blockAlign === 2 * info.channels;

/** A canonical 44-byte header for 16-bit PCM samples. */
export function pcm16Header(channels: number, sampleRate: number, frames: number): Buffer {
  const blockAlign = 2 * channels;
  const dataBytes = frames * blockAlign;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export async function openForReading(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    throw new AudioError(`the recording cannot be opened: ${(error as Error).message}`);
  }
}

export async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
