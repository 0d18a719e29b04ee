import type { BodyFixtures, ResourceFixtures } from '../../core/testing';
import { fixtures as imports } from './imports/testing-fixtures';
import { fixtures as records } from './records/testing-fixtures';
import { fixtures as search } from './search/testing-fixtures';
import { fixtures as tables } from './tables/testing-fixtures';

/** How the cross-tenant sweep (and plugin tests) make the tables plugin's resources. */
export const fixtures: ResourceFixtures = { ...tables, ...records, ...imports, ...search };

/** Imports need a source the sweep cannot guess; `table_uuid` is then set to each id it tries. */
export const bodies: BodyFixtures = {
  'POST /api/v1/data/import/copypaste': () => ({ text: 'name\nwidget\n' }),
  // A closed local port: the owner's own import is accepted (202) and then fails, reaching nowhere.
  'POST /api/v1/data/import/website': () => ({ url: 'http://127.0.0.1:9/' }),
};

export const unswept: Record<string, string> = {
  'POST /api/v1/data/import/file table_uuid':
    'a multipart upload (the sweep sends JSON); it finds table_uuid through createImport like copypaste and website, which are swept',
};
