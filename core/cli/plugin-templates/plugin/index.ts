import { configRef, coreServices, DataEnvelope, definePlugin, defineRoute, Type } from 'switchboard/core';

/** The plugin's settings, under `acme-leads` in the configuration; each may come from its environment variable. */
const acmeLeadsConfig = {
  greeting: { doc: 'How GET /api/v1/acme-leads/hello greets a tenant', format: String, default: 'Hello', env: 'ACME_LEADS_GREETING' },
};

const Hello = Type.Object({ message: Type.String(), tenant: Type.String() });

/**
 * Acme Leads: one route, answered for the tenant of the request (its host and token),
 * with a setting of its own. `init` runs once, at boot, after the plugins it depends on.
 */
export default definePlugin({
  config: acmeLeadsConfig,
  deps: { http: coreServices.http, config: configRef(acmeLeadsConfig) },
  init({ http, config }) {
    http.route(
      defineRoute({
        method: 'GET',
        path: '/api/v1/acme-leads/hello',
        summary: 'Greet the tenant',
        response: DataEnvelope(Hello),
        handler: ({ tenant }) => ({ data: { message: `${config.get('greeting')}, ${tenant.slug}`, tenant: tenant.slug } }),
      }),
    );
  },
});
