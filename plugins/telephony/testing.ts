import type { ResourceFixtures } from '../../core/testing';

/** How the cross-tenant sweep (and plugin tests) make the telephony plugin's resources: through the API, with no agent. */
export const fixtures: ResourceFixtures = {
  'telephony.pbx_extension_connector': async ({ api }) => {
    const res = await api.post('/api/v1/pbx_extension_connectors').send({ name: 'sweep', pbx: { registrar_server: 'pbx.example.com', username_extension: '201' } }).expect(201);
    return { 'telephony.pbx_extension_connector': res.body.data.pbx_extension_connector_uuid };
  },
  'telephony.sip_trunk_connection': async ({ api }) => {
    const res = await api.post('/api/v1/channels/sip-trunk/connections').send({ name: 'sweep', gateway: 'sip.example.com' }).expect(201);
    return { 'telephony.sip_trunk_connection': res.body.data.uuid };
  },
};
