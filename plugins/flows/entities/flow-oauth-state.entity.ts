import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/**
 * An OAuth2 authorization under way (`POST /api/v1/flow/connections/oauth/start`), until its
 * callback or `expiresAt`. The `state` sent to the authorization server is stored only as
 * a hash, the PKCE verifier sealed: a leaked row can neither finish the authorization
 * nor be matched to the URL the user opened.
 */
@Entity({ tableName: 'flow_oauth_states' })
@Unique({ name: 'flow_oauth_states_hash_index', properties: ['stateHash'] })
@Index({ name: 'flow_oauth_states_tenant_index', properties: ['tenantUuid', 'expiresAt'] })
export class FlowOAuthState extends TenantScopedEntity {
  @Property({ type: 'text' })
  stateHash!: string;

  @Property({ type: 'text' })
  appUid!: string;

  /** The label the connection will have. */
  @Property({ type: 'text' })
  label!: string;

  /** Sealed by the secrets service; null when the app sends no PKCE challenge. */
  @Property({ type: 'text', nullable: true })
  codeVerifier!: string | null;

  /** The redirect URI sent with the authorization request, which the code exchange must repeat. */
  @Property({ type: 'text' })
  redirectUri!: string;

  /** Where the browser goes once the callback is done (the start's `redirect_uri`); null answers JSON. */
  @Property({ type: 'text', nullable: true })
  returnTo!: string | null;

  /** The API token that started it (its id): only a connection of the same tenant, made on that token's behalf. */
  @Property({ type: 'text' })
  startedBy!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
