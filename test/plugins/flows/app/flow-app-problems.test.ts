import { Type } from '../../../../core';
import { Auth, defineAction, defineFlowApp, defineFlowAppExtension, defineOptions, defineTrigger, Options } from '../../../../plugins/flows';
import { flowAppProblems } from '../../../../plugins/flows/app/flow-app-problems';

/** What the flows plugin's `checkContributions` answers for `switchboard plugin check`. */

const NoInput = Type.Object({}, { additionalProperties: false });
const crm = defineFlowApp({
  uid: 'crm',
  name: 'CRM',
  description: 'A CRM',
  icon: 'data:,',
  category: 'connect',
  auth: Auth.apiKey(),
  actions: [defineAction({ key: 'add', name: 'Add', description: 'Adds', input: Type.Object({ team: Options('teams') }), outputSample: { id: 1 }, run: () => ({ id: 1 }) })],
  options: [defineOptions({ kind: 'teams', params: NoInput, load: () => ({ options: [] }) })],
});
const poll = (intervalSeconds: number) => ({ intervalSeconds, run: () => ({ events: [], cursor: null }) });

describe('flowAppProblems', () => {
  it('finds nothing in a well-formed app, nor in what extends it', () => {
    const extension = defineFlowAppExtension({ app: 'crm', by: 'crm-extra', triggers: [defineTrigger({ key: 'polled', name: 'Polled', description: 'Polls', input: NoInput, outputSample: {}, poll: poll(60) })] });
    expect(flowAppProblems([crm], [extension])).toEqual([]);
  });

  it('names the problems of what an extension adds, and an extension of an app nobody provides', () => {
    const linked = defineTrigger({ key: 'linked', name: 'Linked', description: 'Links', input: Type.Object({ owner: Options('owners') }), outputSample: {}, poll: poll(-1) });
    const taken = defineAction({ key: 'add', name: 'Add again', description: 'Clashes', input: NoInput, outputSample: {}, run: () => null });
    expect(flowAppProblems([crm], [defineFlowAppExtension({ app: 'crm', by: 'crm-extra', triggers: [linked], actions: [taken] }), defineFlowAppExtension({ app: 'erp', by: 'erp-extra' })])).toEqual([
      'flow app "crm": trigger "linked": field "owner" names the option list "owners", which the app does not have (it has teams)',
      'flow app "crm": trigger "linked" polls every -1 seconds: intervalSeconds must be a whole number from 1 to 86400',
      'plugin "crm-extra" adds action "add" to flow app "crm", which already has one',
      'plugin "erp-extra" extends flow app "erp", which no installed plugin provides',
    ]);
  });

  it('compiles every schema as the flows plugin does, keeping what ajv only warns about', () => {
    const odd = defineFlowApp({
      ...crm,
      actions: [defineAction({ key: 'odd', name: 'Odd', description: 'Odd', input: Type.Object({ when: Type.String({ format: 'someday' }) }), outputSample: {}, run: () => null })],
      options: [defineOptions({ kind: 'teams', params: Type.Object({ ref: Type.Unsafe({ $ref: '#/nowhere' }) }), load: () => ({ options: [] }) })],
    });
    expect(flowAppProblems([odd], [])).toEqual([
      'flow app "crm": action "odd": its input schema does not compile: unknown format "someday" ignored in schema at path "#/properties/when"',
      expect.stringMatching(/^flow app "crm": options kind "teams": its params schema does not compile: can't resolve reference #\/nowhere/),
    ]);
  });

  it('wants each output sample as the engine stores an output: JSON', () => {
    const sampled = (outputSample: unknown) => defineFlowApp({ ...crm, actions: [{ ...crm.actions![0], outputSample }] });
    expect(flowAppProblems([sampled(undefined)], [])).toEqual(['flow app "crm": action "add" has no outputSample']);
    expect(flowAppProblems([sampled({ id: 1, big: 1n })], [])).toEqual(['flow app "crm": action "add": its outputSample is not JSON: Do not know how to serialize a BigInt']);
    expect(flowAppProblems([sampled({ id: 1, note: undefined })], [])).toEqual([
      'flow app "crm": action "add": its outputSample changes when stored as JSON (a Date, an undefined member, a class instance): write it as JSON',
    ]);
  });
});
