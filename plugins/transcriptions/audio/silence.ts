/**
 * Where to cut a stretch of 16-bit PCM (little-endian, channels interleaved): in the
 * middle of its longest quiet run, so neither piece starts or ends inside a word.
 *
 * Loudness is the RMS over 50 ms frames (a syllable is longer, a pause between words
 * about as long or longer), taken every 10 ms. "Quiet" is relative to the quietest frame
 * of the stretch, since recordings differ in their noise floor: within twice its RMS,
 * plus a margin of 16 (about -66 dBFS) so that digital silence next to faint dither
 * counts as one run. The middle of the longest such run is the point farthest from speech.
 *
 * Returns the frame index (sample of every channel) in `pcm` to cut at.
 */
export function quietestCut(pcm: Buffer, channels: number, sampleRate: number): number {
  const frames = Math.floor(pcm.length / (2 * channels));
  const hop = Math.max(1, Math.round(sampleRate * HOP_SECONDS));
  const blocks = Math.floor(frames / hop);
  if (blocks < WINDOW_BLOCKS) return frames; // Too short to tell words from pauses: cut at its end.

  const blockEnergy = new Float64Array(blocks);
  for (let block = 0; block < blocks; block++) {
    let sum = 0;
    const start = block * hop * channels;
    for (let i = start; i < start + hop * channels; i++) {
      const sample = pcm.readInt16LE(2 * i);
      sum += sample * sample;
    }
    blockEnergy[block] = sum;
  }

  const windows = blocks - WINDOW_BLOCKS + 1;
  const rms = new Float64Array(windows);
  let min = Infinity;
  for (let w = 0; w < windows; w++) {
    let sum = 0;
    for (let b = w; b < w + WINDOW_BLOCKS; b++) sum += blockEnergy[b];
    rms[w] = Math.sqrt(sum / (WINDOW_BLOCKS * hop * channels));
    min = Math.min(min, rms[w]);
  }

  const quiet = 2 * min + QUIET_MARGIN;
  let best = { first: 0, last: 0, length: 0 };
  for (let w = 0; w < windows; ) {
    if (rms[w] > quiet) {
      w++;
      continue;
    }
    const first = w;
    while (w < windows && rms[w] <= quiet) w++;
    if (w - first > best.length) best = { first, last: w - 1, length: w - first };
  }
  // The run's windows cover the blocks from `first` to `last + WINDOW_BLOCKS`: its middle.
  return Math.round(((best.first + best.last + WINDOW_BLOCKS) / 2) * hop);
}

const HOP_SECONDS = 0.01;
const WINDOW_BLOCKS = 5; // 50 ms frames of 10 ms hops
const QUIET_MARGIN = 16;
