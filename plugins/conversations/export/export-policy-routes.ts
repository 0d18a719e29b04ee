import { defineRoute, type AnyRoute } from '../../../core';
import type { ExportPolicy } from '../entities/message-export-setting.entity';
import { readPolicy, savePolicy } from './export-policy';
import { ExportPolicyEnvelope, ExportPolicyWrite } from './export-schemas';

const PATH = '/api/v1/settings/message-export';
const TAGS = ['conversations'];

const readExportPolicy = defineRoute({
  method: 'GET',
  path: PATH,
  summary: 'Read the message export policy',
  description: 'The workspace’s policy for `GET /api/v1/analytics/messages`. A workspace that never saved one has `enabled` (and `updated_at: null`).',
  tags: TAGS,
  response: ExportPolicyEnvelope,
  handler: async ({ em }) => ({ success: true, message: 'Message export policy', data: await readPolicy(em) }),
});

const changeExportPolicy = defineRoute({
  method: 'PUT',
  path: PATH,
  summary: 'Change the message export policy',
  description:
    '`enabled`: the export returns messages as stored; `masked`: every `content` is replaced with `***`; `disabled`: the export answers 403. ' +
    'Applies from the next export request on, including pages read with a cursor issued before.',
  tags: TAGS,
  body: ExportPolicyWrite,
  response: ExportPolicyEnvelope,
  handler: async ({ body, em, tenant }) => ({
    success: true,
    message: 'Message export policy updated',
    data: await savePolicy(em, tenant.uuid, body.policy as ExportPolicy),
  }),
});

/** `GET|PUT /api/v1/settings/message-export`: the workspace's message export policy. */
export const exportPolicyRoutes: readonly AnyRoute[] = [readExportPolicy, changeExportPolicy];
