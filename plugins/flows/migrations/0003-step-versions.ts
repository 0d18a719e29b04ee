import { Migration } from '@mikro-orm/migrations';

/**
 * A step keeps the version of its trigger or action (FlowStep.definitionVersion). Steps
 * made before apps had versions were made with version 1, the version of every
 * definition that declares none. Deployed definitions without it are read as version 1.
 */
export class Migration0003StepVersions extends Migration {
  override up(): void {
    this.addSql('alter table "flow_steps" add column "definition_version" int not null default 1;');
  }

  override down(): void {
    this.addSql('alter table "flow_steps" drop column "definition_version";');
  }
}
