/**
 * The contacts bench/outreach uploads: listing contact items as a client sends them,
 * and the same contacts as the rows a raw INSERT writes (values already normalized).
 */

const FIRST_NAMES = 'Ana Bruno Carmen Diego Elena Fernando Gloria Hugo Irene Javier Lucía Manuel Nuria Óscar Paula Raúl Sara Tomás Úrsula Víctor'.split(' ');
const LAST_NAMES = 'García Fernández González Rodríguez López Martínez Sánchez Pérez Gómez Martín Jiménez Ruiz Hernández Díaz Moreno'.split(' ');
const CITIES = 'Madrid Barcelona Valencia Sevilla Zaragoza Málaga Murcia Palma Bilbao Alicante Córdoba Valladolid'.split(' ');
const ZONES = ['Europe/Madrid', 'Europe/Madrid', 'Europe/Madrid', 'Atlantic/Canary'];

/** The spec's listing contact item, with one custom member (`budget`). */
export interface ListingItem {
  name: string;
  surname: string;
  phone_number: string;
  email: string;
  timezone: string;
  country_code: string;
  company: string;
  city: string;
  lead_source: string;
  budget: string;
}

/**
 * `count` contacts with unique phone numbers (valid Spanish mobiles, +34 6xx xxx xxx, in
 * E.164) and unique emails. `wave` changes `lead_source` and `budget`, so sending the
 * same contacts again with another wave updates every one of them.
 */
export function listingItems(count: number, wave = 1): ListingItem[] {
  if (count > 90_000_000) throw new Error('at most 90,000,000 distinct Spanish mobile numbers in this plan');
  return Array.from({ length: count }, (_, i) => {
    const name = FIRST_NAMES[i % FIRST_NAMES.length];
    const surname = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length];
    return {
      name,
      surname,
      phone_number: `+346${10_000_000 + i}`,
      email: `contact${i}@example.com`,
      timezone: ZONES[i % ZONES.length],
      country_code: 'ES',
      company: `Empresa ${i % 997}`,
      city: CITIES[i % CITIES.length],
      lead_source: wave === 1 ? 'feria-2025' : `feria-2025-${wave}`,
      budget: String(1000 + ((i * 37 + wave) % 500) * 100),
    };
  });
}

/** The columns the raw INSERT writes per row, besides uuid, tenant and timestamps. */
export const RAW_COLUMNS = ['name', 'surname', 'phone_number', 'email', 'timezone', 'country_code', 'company', 'city', 'lead_source', 'custom_fields'] as const;

/** The row values of an item in RAW_COLUMNS order: the members as they are stored, the custom one as the jsonb text of custom_fields. */
export function rawValues(item: ListingItem): string[] {
  return [item.name, item.surname, item.phone_number, item.email, item.timezone, item.country_code, item.company, item.city, item.lead_source, JSON.stringify({ budget: item.budget })];
}
