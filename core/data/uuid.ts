import { v7 } from 'uuid';

/** Time-ordered ids: new rows land at the end of the primary key index. */
export const newUuid = (): string => v7();
