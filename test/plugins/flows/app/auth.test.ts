import { Type } from '../../../../core';
import { Auth, defineAction, defineOptions, type CredentialsOf } from '../../../../plugins/flows';

/** True when two types are the same (the checks below fail to compile otherwise: tsc --noEmit -p . runs over the tests). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>) => proof;

const crm = Auth.apiKey({ extra: { base_url: Type.String({ format: 'uri' }) }, test: ({ api_key, base_url }) => ({ valid: api_key.length > 0 && base_url.length > 0 }) as never });
const mail = Auth.oauth2({ authorizeUrl: 'https://mail.example.com/a', tokenUrl: 'https://mail.example.com/t', scopes: ['mail.send'], pkce: true, clientIdKey: 'id', clientSecretKey: 'secret' });

describe('Auth helpers: the credentials schema a connection stores, and its type', () => {
  it('apiKey: `api_key` and the extra members, nothing else; the credentials type follows', () => {
    same<CredentialsOf<typeof crm>, { api_key: string; base_url: string }>(true);
    expect(crm.type).toBe('api_key');
    expect(JSON.parse(JSON.stringify(crm.schema))).toEqual({
      type: 'object',
      properties: { api_key: { type: 'string', minLength: 1, description: 'The API key' }, base_url: { type: 'string', format: 'uri' } },
      required: ['api_key', 'base_url'],
      additionalProperties: false,
    });
  });

  it('basic: `username` and `password`', () => {
    const basic = Auth.basic({ examples: [{ username: 'ada', password: 'secret' }] });
    same<CredentialsOf<typeof basic>, { username: string; password: string }>(true);
    expect(basic.schema.required).toEqual(['username', 'password']);
    expect(basic.schema.examples).toEqual([{ username: 'ada', password: 'secret' }]);
  });

  it('oauth2: the declaration (scopes, URLs, PKCE, the config keys of the client) and the tokens as credentials', () => {
    same<CredentialsOf<typeof mail>, { access_token: string; refresh_token?: string; token_type?: string; expires_at?: string; scope?: string }>(true);
    expect(mail).toMatchObject({ type: 'oauth2', scopes: ['mail.send'], pkce: true, clientIdKey: 'id', clientSecretKey: 'secret' });
    expect(mail.schema.required).toEqual(['access_token']);
    expect(Auth.oauth2({ authorizeUrl: 'https://a.example', tokenUrl: 'https://t.example', clientIdKey: 'id', clientSecretKey: 'secret' })).toMatchObject({ scopes: [], pkce: true, scopeSeparator: ' ', tokenPrefix: 'Bearer' });
  });

  it('custom: the app’s schema as it is', () => {
    const schema = Type.Object({ bot_token: Type.String() });
    const custom = Auth.custom(schema, { description: 'The bot’s token' });
    same<CredentialsOf<typeof custom>, { bot_token: string }>(true);
    expect(custom).toEqual({ type: 'custom', schema, description: 'The bot’s token' });
  });

  it('types the credentials of the actions and option lists that name the auth; code for any app gets a plain record', () => {
    const action = defineAction({
      auth: crm,
      key: 'sync',
      name: 'Sync',
      description: '',
      input: Type.Object({}),
      outputSample: {},
      run: ({ connection }) => {
        same<NonNullable<typeof connection>['credentials'], { api_key: string; base_url: string }>(true);
        // @ts-expect-error: not a member of this app's credentials
        return connection?.credentials.password;
      },
    });
    const options = defineOptions({
      auth: mail,
      kind: 'labels',
      params: Type.Object({}),
      load: ({ connection }) => ({ options: [{ label: 'token', value: connection?.credentials.access_token ?? '' }] }),
    });
    const untyped = defineAction({ key: 'any', name: 'Any', description: '', input: Type.Object({}), outputSample: {}, run: ({ connection }) => connection?.credentials });
    same<CredentialsOf<undefined>, Record<string, unknown>>(true);
    expect([action.auth, options.auth, untyped.auth]).toEqual([crm, mail, undefined]);
  });
});
