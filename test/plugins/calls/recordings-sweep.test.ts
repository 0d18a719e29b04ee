import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '../../../core/testing';
import { UNFINISHED_AFTER_MS, sweepUnfinishedRecordings } from '../../../plugins/calls/engine/recordings-sweep';
import { FsFileStorage } from '../../../plugins/storage/fs-file-storage';
import { startCallsKit, type CallsKit } from './calls-kit';

/**
 * A process that died while it stored a call's recording leaves the write unfinished under
 * `recordings/`: background processes remove it once older than UNFINISHED_AFTER_MS;
 * a write still going on and the recordings themselves stay.
 */

const TENANT = '0190cccc-0000-7000-8000-000000000001';
const ago = (ms: number) => new Date(Date.now() - ms);

/** A finished recording, a write dead for two hours and one from a moment ago, as the fs driver leaves them. */
async function leftovers(dir: string): Promise<{ finished: string; dead: string; live: string }> {
  await new FsFileStorage(dir).put(`recordings/${TENANT}/0190dddd-0000-7000-8000-000000000001.wav`, Buffer.from('RIFF'), { contentType: 'audio/wav' });
  const tenantDir = path.join(dir, 'recordings', TENANT);
  const finished = path.join(tenantDir, '0190dddd-0000-7000-8000-000000000001.wav');
  const dead = path.join(tenantDir, '.0190dddd-0000-7000-8000-000000000002.wav.0190eeee-1111-7222-8333-444455556666.tmp');
  const live = path.join(tenantDir, '.0190dddd-0000-7000-8000-000000000003.wav.0190eeee-1111-7222-8333-444455557777.tmp');
  fs.writeFileSync(dead, 'RIFF');
  fs.writeFileSync(live, 'RIFF');
  fs.utimesSync(dead, ago(2 * UNFINISHED_AFTER_MS), ago(2 * UNFINISHED_AFTER_MS));
  fs.utimesSync(finished, ago(5 * UNFINISHED_AFTER_MS), ago(5 * UNFINISHED_AFTER_MS));
  return { finished, dead, live };
}

describe('unfinished recordings swept', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-recordings-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('removes the writes older than the age under recordings/, and nothing else', async () => {
    const dir = tempDir();
    const files = await leftovers(dir);
    expect(await sweepUnfinishedRecordings(new FsFileStorage(dir))).toBe(1);
    expect([fs.existsSync(files.dead), fs.existsSync(files.live), fs.existsSync(files.finished)]).toEqual([false, true, true]);
  });

  describe('by the calls plugin', () => {
    let kit: CallsKit;
    let files: { finished: string; dead: string; live: string };
    beforeAll(async () => {
      const dir = tempDir();
      files = await leftovers(dir);
      kit = await startCallsKit({ config: { storage: { fsDir: dir } } });
    });
    afterAll(() => kit?.stop());

    it('sweeps as a background process starts', async () => {
      await waitFor(
        () => fs.existsSync(files.dead),
        (exists) => !exists,
      );
      expect([fs.existsSync(files.live), fs.existsSync(files.finished)]).toEqual([true, true]);
    });
  });
});
