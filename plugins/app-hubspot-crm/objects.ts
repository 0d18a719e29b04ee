/**
 * HubSpot's standard object types the app offers (the ones its scopes cover), with what
 * names a record to a person and which property holds its last change. Custom objects
 * (Enterprise accounts) come from the schemas API; theirs are read from the schema.
 */
export interface StandardObject {
  objectType: string;
  label: string;
  /** The properties a record's label is made of, in order; the first non-empty wins but contacts join their names. */
  display: string[];
  /** The property that holds when a record last changed: `lastmodifieddate` on contacts, `hs_lastmodifieddate` elsewhere. */
  lastModified: string;
}

export const STANDARD_OBJECTS: readonly StandardObject[] = [
  { objectType: 'contacts', label: 'Contacts', display: ['firstname', 'lastname', 'email'], lastModified: 'lastmodifieddate' },
  { objectType: 'companies', label: 'Companies', display: ['name', 'domain'], lastModified: 'hs_lastmodifieddate' },
  { objectType: 'deals', label: 'Deals', display: ['dealname'], lastModified: 'hs_lastmodifieddate' },
  { objectType: 'tickets', label: 'Tickets', display: ['subject'], lastModified: 'hs_lastmodifieddate' },
];

/** Object type ids HubSpot also takes in URLs (`0-1` is contacts), mapped to the names above. */
const TYPE_IDS: Record<string, string> = { '0-1': 'contacts', '0-2': 'companies', '0-3': 'deals', '0-5': 'tickets' };

export const standardObject = (objectType: string): StandardObject | undefined => {
  const name = TYPE_IDS[objectType] ?? objectType.toLowerCase();
  return STANDARD_OBJECTS.find((candidate) => candidate.objectType === name);
};

/** The property holding a record's last change; custom objects use HubSpot's `hs_lastmodifieddate`. */
export const lastModifiedProperty = (objectType: string): string => standardObject(objectType)?.lastModified ?? 'hs_lastmodifieddate';

/** A record's label from its properties: a contact's name and email, another object's display property, else its id. */
export function recordLabel(objectType: string, id: string, properties: Record<string, string | null | undefined>, displayProperty?: string): string {
  const value = (name: string) => (properties[name] ?? '').trim();
  const standard = standardObject(objectType);
  if (standard?.objectType === 'contacts') {
    const name = [value('firstname'), value('lastname')].filter(Boolean).join(' ');
    const email = value('email');
    if (name && email) return `${name} <${email}>`;
    if (name || email) return name || email;
  } else {
    const names = displayProperty ? [displayProperty] : (standard?.display ?? []);
    const found = names.map(value).find(Boolean);
    if (found) return found;
  }
  return `#${id}`;
}
