import { EgressError, EgressRefusedError, Type } from '../../core';
import { Auth, VendorError } from '../flows';
import { caldavClient } from './caldav-client';

/**
 * A CalDAV connection: the user's name and password (an app password on Nextcloud) and
 * the server's CalDAV address, sent with HTTP Basic by `context.http`. Creating one
 * tries them: discovery must reach the user's calendar home, else the connection is
 * refused (a 422 at `credentials`) with what to fix.
 */
export const caldavAuth = Auth.basic({
  description: 'The user name and password of a CalDAV account (on Nextcloud, an app password: Settings, Security), and the server’s CalDAV address',
  extra: {
    server_url: Type.String({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: 2048,
      description:
        'The CalDAV address: the server root (Radicale: https://radicale.example.com/) or the DAV root or calendar home (Nextcloud: https://cloud.example.com/remote.php/dav/). Private addresses need EGRESS_ALLOW_CIDRS.',
    }),
  },
  async test(credentials, { http }) {
    try {
      await caldavClient(http, credentials.server_url).home();
      return { valid: true };
    } catch (error) {
      if (error instanceof VendorError) {
        if (error.status === 401) return { valid: false, message: 'The CalDAV server refused this user name and password (401): check them (Nextcloud with two-factor login needs an app password)' };
        if (error.status === 403) return { valid: false, message: 'The CalDAV server does not let this user read its calendars (403)' };
        return { valid: false, message: error.message };
      }
      if (error instanceof EgressRefusedError) return { valid: false, message: `Switchboard may not call this server_url (${error.reason}); an operator allows private servers with EGRESS_ALLOW_CIDRS` };
      if (error instanceof EgressError) return { valid: false, message: `The CalDAV server at server_url could not be reached: ${error.message}` };
      throw error;
    }
  },
});
