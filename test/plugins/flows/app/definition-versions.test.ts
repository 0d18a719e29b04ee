import { BootError, Type } from '../../../../core';
import type { FlowActionDefinition, FlowAppDefinition, FlowTriggerDefinition } from '../../../../plugins/flows';
import { pickVersion, upgradeConfig } from '../../../../plugins/flows/app/definition-versions';
import { FlowCatalog } from '../../../../plugins/flows/app/flow-catalog';
import { runAction } from '../../../../plugins/flows/testing-kit';

/** Versions of one action (`send`): v1 took `to`, v2 takes `recipients`, v3 adds `subject`. */
const sendV1 = { key: 'send', version: 1, name: 'Send v1', description: '', input: Type.Object({ to: Type.String() }), outputSample: {}, run: () => 'v1' } satisfies FlowActionDefinition;
const sendV2 = {
  ...sendV1,
  version: 2,
  name: 'Send v2',
  input: Type.Object({ recipients: Type.Array(Type.String()) }, { additionalProperties: false }),
  migrate: (config: Record<string, unknown>) => ({ recipients: [config.to] }),
  run: () => 'v2',
} satisfies FlowActionDefinition;
const sendV3 = {
  ...sendV2,
  version: 3,
  name: 'Send v3',
  input: Type.Object({ recipients: Type.Array(Type.String()), subject: Type.String() }, { additionalProperties: false }),
  migrate: (config: Record<string, unknown>, from: number) => ({ ...config, subject: `(upgraded from ${from})` }),
  run: () => 'v3',
} satisfies FlowActionDefinition;

const app = (overrides: Partial<FlowAppDefinition>): FlowAppDefinition => ({ uid: 'mailer', name: 'Mailer', description: '', icon: 'data:,', category: 'builtin', ...overrides });

function refusal(apps: FlowAppDefinition[]): string {
  try {
    new FlowCatalog(apps);
  } catch (error) {
    expect(error).toBeInstanceOf(BootError);
    return (error as Error).message;
  }
  throw new Error('the catalog accepted the apps');
}

describe('versions of an action at boot', () => {
  it('refuses a (key, version) twice, a version that is not a whole number from 1, and a newer version without migrate, naming app, action and version', () => {
    expect(refusal([app({ actions: [sendV1, sendV2, { ...sendV2, name: 'again' }] })])).toBe('flow app "mailer" declares action "send" version 2 twice');
    expect(refusal([app({ actions: [{ ...sendV1, version: 0 }] })])).toBe('flow app "mailer": action "send" has version 0: a version is a whole number, 1 or more');
    expect(refusal([app({ actions: [{ ...sendV1, version: 1.5 }] })])).toContain('action "send" has version 1.5');
    expect(refusal([app({ actions: [sendV1, { ...sendV2, migrate: undefined }] })])).toBe(
      'flow app "mailer": action "send" version 2 has no migrate(): a newer version must say how configs of older versions upgrade',
    );
    // Also when the versions before it are gone: a draft step of version 1 may still need it.
    expect(refusal([app({ actions: [{ ...sendV2, migrate: undefined }] })])).toContain('action "send" version 2 has no migrate()');
  });

  it('refuses versions of one action with other branches, and of one trigger that fire another way', () => {
    const choose = { ...sendV1, key: 'choose', branches: ['yes', 'no'] };
    expect(refusal([app({ actions: [choose, { ...choose, version: 2, branches: ['a', 'b'], migrate: (c: Record<string, unknown>) => c }] })])).toBe(
      'flow app "mailer": action "choose" version 2 has branches a, b but version 1 has branches yes, no: versions of one action cannot differ in this (declare a new action key instead)',
    );
    const received: FlowTriggerDefinition = { key: 'received', name: 'Received', description: '', input: Type.Object({}), outputSample: {}, event: { topic: 'mail.in', matches: () => true } };
    const movedTopic = { ...received, version: 2, migrate: (c: Record<string, unknown>) => c, event: { topic: 'mail.received', matches: () => true } };
    expect(refusal([app({ triggers: [received, movedTopic] })])).toContain('trigger "received" version 2 fires on events of mail.received but version 1 fires on events of mail.in');
    expect(() => new FlowCatalog([app({ triggers: [received, { ...movedTopic, event: received.event }] })])).not.toThrow();
  });

  it('refuses an app version that is not semver, and lets an extension add no version of an app’s action', () => {
    expect(refusal([app({ version: 'v2' })])).toBe('flow app "mailer": version "v2" is not a semantic version such as 1.4.0');
    expect(() => new FlowCatalog([app({ version: '1.4.0-beta.1+build.7' })])).not.toThrow();
    expect(() => new FlowCatalog([app({ actions: [sendV1] })], [{ app: 'mailer', by: 'mail-plus', actions: [sendV2] }])).toThrow(
      'plugin "mail-plus" adds action "send" to flow app "mailer", which already has one',
    );
  });
});

describe('the catalog with several versions of an action', () => {
  // Listed in any order: the newest is what new steps get.
  const catalog = new FlowCatalog([app({ actions: [sendV2, sendV1, { ...sendV1, key: 'ping', name: 'Ping' }] })]);

  it('shows one action per key, the newest, and finds every listed version', () => {
    expect(catalog.app('mailer')!.actions!.map((action) => [action.key, action.version])).toEqual([
      ['send', 2],
      ['ping', 1],
    ]);
    expect(catalog.summary(catalog.app('mailer')!).actions_count).toBe(2);
    expect(catalog.action('mailer', 'send')?.name).toBe('Send v2');
    expect(catalog.action('mailer', 'send', 1)?.name).toBe('Send v1');
    expect(catalog.action('mailer', 'send', 3)).toBeUndefined();
    expect(catalog.versions('action', 'mailer', 'send')?.supported).toEqual([1, 2]);
    expect(catalog.versions('action', 'mailer', 'ping')?.supported).toEqual([1]);
    expect(catalog.versions('trigger', 'mailer', 'send')).toBeUndefined();
  });
});

describe('upgradeConfig', () => {
  const versions = new FlowCatalog([app({ actions: [sendV1, sendV2, sendV3] })]).versions('action', 'mailer', 'send')!;
  const withoutV2 = new FlowCatalog([app({ actions: [sendV1, sendV3] })]).versions('action', 'mailer', 'send')!;

  it('runs each newer version’s migrate in turn, each told the version its config is at', () => {
    expect(upgradeConfig(versions, { to: 'ada@example.com' }, 1)).toEqual({ recipients: ['ada@example.com'], subject: '(upgraded from 2)' });
    expect(upgradeConfig(versions, { recipients: ['a'] }, 2)).toEqual({ recipients: ['a'], subject: '(upgraded from 2)' });
    // Version 2 gone: version 3's migrate gets the version-1 config and is told so.
    expect(upgradeConfig(withoutV2, { to: 'x' }, 1)).toEqual({ to: 'x', subject: '(upgraded from 1)' });
  });

  it('never changes the config it is given, and refuses an answer that is not an object', () => {
    const config = { to: 'x', nested: { a: 1 } };
    const mutating = { ...sendV2, migrate: (c: Record<string, unknown>) => Object.assign(c, { recipients: ['y'] }) };
    upgradeConfig(new FlowCatalog([app({ actions: [sendV1, mutating] })]).versions('action', 'mailer', 'send')!, config, 1);
    expect(config).toEqual({ to: 'x', nested: { a: 1 } });
    const broken = { ...sendV2, migrate: () => [1] as unknown as Record<string, unknown> };
    expect(() => upgradeConfig(new FlowCatalog([app({ actions: [sendV1, broken] })]).versions('action', 'mailer', 'send')!, config, 1)).toThrow(
      'migrate() of version 2 answered [1], not a config object',
    );
  });
});

describe('the app test kit', () => {
  it('runs the newest version of an action unless `version` names another', async () => {
    const mailer = app({ actions: [sendV1, sendV3, sendV2] });
    expect((await runAction(mailer, 'send', { recipients: ['a'], subject: 's' })).output).toBe('v3');
    expect((await runAction(mailer, 'send', { to: 'a' }, { version: 1 })).output).toBe('v1');
    await expect(runAction(mailer, 'send', { to: 'a' }, { version: 4 })).rejects.toThrow('mailer has no action "send" version 4');
  });

  it('pickVersion takes the newest version of a key unless told which', () => {
    expect(pickVersion([sendV2, sendV3, sendV1], 'send')?.name).toBe('Send v3');
    expect(pickVersion([sendV2, sendV3, sendV1], 'send', 1)?.name).toBe('Send v1');
    expect(pickVersion([sendV2], 'send', 1)).toBeUndefined();
    expect(pickVersion(undefined, 'send')).toBeUndefined();
  });
});
