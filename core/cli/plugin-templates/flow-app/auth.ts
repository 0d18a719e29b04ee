import { Type } from 'switchboard/core';
import { Auth } from 'switchboard/flows';
import { acmeLeadsClient, AcmeLeadsError } from './client';

/**
 * A connection to Acme Leads stores an API key and the API's base URL, sealed, never
 * returned. Creating one (and replacing its credentials) tries them first: a key Acme
 * Leads refuses is a 422 at `credentials`, and nothing is stored.
 */
export const acmeLeadsAuth = Auth.apiKey({
  description: 'An API key of your Acme Leads account (Settings, API keys)',
  extra: { base_url: Type.String({ format: 'uri', description: 'The API base URL, such as https://api.acme-leads.example' }) },
  async test(credentials, { egress }) {
    try {
      await acmeLeadsClient(credentials, egress).me();
      return { valid: true };
    } catch (error) {
      if (error instanceof AcmeLeadsError && error.status === 401) return { valid: false, message: 'Acme Leads does not accept this API key' };
      throw error;
    }
  },
});
