import { ContributedDeps, contributeWithDeps, contributedDepsRef, createExtensionPoint, createServiceRef } from '../../../core';

interface Job {
  type: string;
  deps?: Record<string, ReturnType<typeof createServiceRef<unknown>>>;
}

const jobs = createExtensionPoint<Job>({ id: 'test.jobs' });
const jobDepsRef = contributedDepsRef<Job>('test.jobDeps');
const clockRef = createServiceRef<{ now(): number }>('test.clock');
const clock = { now: () => 42 };
const registry = (how?: string) => new ContributedDeps<Job>((job) => `job "${job.type}"`, how);

describe('contributeWithDeps', () => {
  it('contributes the item, names its deps and the registry as the plugin’s, and hands the services over in init', () => {
    const job: Job = { type: 'tick', deps: { clock: clockRef } };
    const members = contributeWithDeps(jobs, job, jobDepsRef);
    expect(members.contributes).toEqual([jobs.add(job)]);
    expect(members.deps).toEqual({ clock: clockRef, contributedDeps: jobDepsRef });

    const held = registry();
    members.init({ clock, contributedDeps: held });
    expect(held.of(job)).toEqual({ clock });
    expect(Object.isFrozen(held.of(job))).toBe(true);
  });

  it('refuses an item whose dep takes the registry’s name', () => {
    expect(() => contributeWithDeps(jobs, { type: 'odd', deps: { contributedDeps: clockRef } }, jobDepsRef)).toThrow('a contributed item\'s dep may not be named "contributedDeps"');
  });
});

describe('ContributedDeps', () => {
  it('refuses deps provided twice, or without a service the item names', () => {
    const held = registry();
    const job: Job = { type: 'tick', deps: { clock: clockRef } };
    expect(() => held.provide(job, {})).toThrow('job "tick": deps clock were not provided');
    held.provide(job, { clock });
    expect(() => held.provide(job, { clock })).toThrow('job "tick": its deps were provided twice');
  });

  it('says how to contribute an item whose deps never came, in the point owner’s words', () => {
    const job: Job = { type: 'tick', deps: { clock: clockRef } };
    expect(() => registry().of(job)).toThrow('job "tick" names deps its plugin never provided: contribute it with the point\'s contribute helper');
    expect(() => registry('contributeJob(...)').of(job)).toThrow('job "tick" names deps its plugin never provided: contribute it with contributeJob(...)');
  });

  it('lists the items that name deps nobody provided, and none that name no deps', () => {
    const held = registry();
    const provided: Job = { type: 'provided', deps: { clock: clockRef } };
    const unprovided: Job = { type: 'unprovided', deps: { clock: clockRef } };
    held.provide(provided, { clock });
    expect(held.missing([provided, unprovided, { type: 'plain' }, { type: 'empty', deps: {} }])).toEqual(['job "unprovided"']);
  });
});
