import path from 'node:path';
import { findByUuid } from '../../../core';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { Note } from '../../../examples/plugins/notes/note.entity';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');
let kit: TestKernel;
let noteUuid: string;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [NOTES] });
  noteUuid = (await kit.api.post('/api/v1/notes').send({ title: 'Call back', body: 'renewal' }).expect(201)).body.data.uuid;
});
afterAll(() => kit?.stop());

describe('findByUuid', () => {
  it('finds what em.findOne finds, as a managed entity with the same values', async () => {
    await runInContext({ tenant: kit.tenant }, async () => {
      const fast = await findByUuid(kit.kernel.orm.em.fork(), Note, noteUuid);
      const slow = await kit.kernel.orm.em.fork().findOne(Note, { uuid: noteUuid });
      expect(fast).toBeInstanceOf(Note);
      expect({ ...fast }).toEqual({ ...slow });
      expect(fast!.createdAt).toBeInstanceOf(Date);
      expect(fast!.extras).toEqual({});
    });
  });

  it('returns a managed entity: a change flushes, a removal deletes', async () => {
    await runInContext({ tenant: kit.tenant }, async () => {
      const em = kit.kernel.orm.em.fork();
      const note = (await findByUuid(em, Note, noteUuid))!;
      // Its snapshot is what was loaded: unchanged, it has nothing to write (every property, jsonb and dates included).
      em.getUnitOfWork().computeChangeSets();
      expect(em.getUnitOfWork().getChangeSets()).toHaveLength(0);
      note.body = 'agreed';
      await em.flush();
      expect((await kit.kernel.orm.em.fork().findOne(Note, { uuid: noteUuid }))!.body).toBe('agreed');
      expect(await findByUuid(em, Note, noteUuid)).toBe(note); // from the identity map
    });
  });

  it("never returns another tenant's row, and refuses to run without a tenant", async () => {
    const other = await kit.createTenant();
    await runInContext({ tenant: other.tenant }, async () => {
      expect(await findByUuid(kit.kernel.orm.em.fork(), Note, noteUuid)).toBeNull();
    });
    await expect(findByUuid(kit.kernel.orm.em.fork(), Note, noteUuid)).rejects.toThrow(/no tenant in context for Note/);
  });

  it('returns null for an unknown id', async () => {
    await runInContext({ tenant: kit.tenant }, async () => {
      expect(await findByUuid(kit.kernel.orm.em.fork(), Note, '00000000-0000-7000-8000-000000000000')).toBeNull();
    });
  });
});
