import { Migration } from '@mikro-orm/migrations';

/** Why the platform last changed a template's status (a rejection's reason), as its status webhook said. */
export class Migration0003TemplateStatusReason extends Migration {
  override up(): void {
    this.addSql('alter table "chatapp_templates" add column "status_reason" text null;');
  }

  override down(): void {
    this.addSql('alter table "chatapp_templates" drop column if exists "status_reason";');
  }
}
