/** Bus topics of the contacts plugin. */
export const CONTACT_TOPICS = {
  /** `{contact_uuid}`: a contact was deleted; plugins holding its uuid in plain columns (outreach's pool items, tasks) clean up. */
  deleted: 'contact.deleted',
} as const;

export interface ContactDeletedEvent {
  contact_uuid: string;
}
