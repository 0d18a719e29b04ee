import { Migration } from '@mikro-orm/migrations';

/** A transfer now waits for its dial's outcome: the line the agent says if nobody answers is kept on the call meanwhile. */
export class Migration0002CallTransferFallback extends Migration {
  override up(): void {
    this.addSql(`alter table "calls" add column "transfer_fallback" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "calls" drop column if exists "transfer_fallback";`);
  }
}
