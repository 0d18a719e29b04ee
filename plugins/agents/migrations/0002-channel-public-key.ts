import { Migration } from '@mikro-orm/migrations';

/** A `web_chat` channel's public key (agent-channel.entity.ts), unique across tenants: the web-chat plugin finds the channel by it. */
export class Migration0002ChannelPublicKey extends Migration {
  override up(): void {
    this.addSql(`alter table "agent_channels" add column "public_key" varchar(64) null;`);
    this.addSql(`alter table "agent_channels" add constraint "agent_channels_public_key_unique" unique ("public_key");`);
    // web_chat channels made before keys existed get one: gen_random_uuid draws from a strong random source.
    this.addSql(`update "agent_channels" set "public_key" = 'pk_' || replace(gen_random_uuid()::text, '-', '') where "type" = 'web_chat';`);
  }
  override down(): void {
    this.addSql(`alter table "agent_channels" drop constraint if exists "agent_channels_public_key_unique";`);
    this.addSql(`alter table "agent_channels" drop column if exists "public_key";`);
  }
}
