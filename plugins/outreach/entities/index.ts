export { OutreachRule } from './outreach-rule.entity';
export { Campaign } from './campaign.entity';
export { CampaignRule } from './campaign-rule.entity';
export { Pool } from './pool.entity';
export { PoolItem } from './pool-item.entity';
export { Listing } from './listing.entity';
export { ListingContact } from './listing-contact.entity';
export { Task } from './task.entity';
