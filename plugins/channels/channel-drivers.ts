import type { ConfigValues } from '../../core';
import type { channelsConfig } from './channels-config';
import type { ChannelDriver } from './driver';

/** Config keys of the built-in providers' API base URLs; another provider uses its driver's `defaultApiBaseUrl`. */
const BASE_URL_KEYS = {
  twilio: 'twilioApiBaseUrl',
  chatapp: 'chatappApiBaseUrl',
  social: 'socialApiBaseUrl',
  telegram: 'telegramApiBaseUrl',
} as const satisfies Record<string, keyof ConfigValues<typeof channelsConfig>>;

/** The installed drivers by provider, with where each one's API is. */
export class ChannelDrivers {
  private readonly byProvider: Map<string, ChannelDriver>;

  constructor(
    drivers: readonly ChannelDriver[],
    private readonly settings: ConfigValues<typeof channelsConfig>,
  ) {
    this.byProvider = new Map(drivers.map((driver) => [driver.provider, driver]));
  }

  get(provider: string): ChannelDriver | undefined {
    return this.byProvider.get(provider);
  }

  providers(): string[] {
    return [...this.byProvider.keys()].sort();
  }

  /** PUBLIC_BASE_URL without a trailing slash; empty when unset (hook URLs are then built from each request). */
  publicBaseUrl(): string {
    return this.settings.publicBaseUrl.replace(/\/+$/, '');
  }

  /** Without a trailing slash, as DriverContext promises. */
  apiBaseUrl(driver: ChannelDriver): string {
    const key = (BASE_URL_KEYS as Record<string, keyof typeof this.settings>)[driver.provider];
    const configured = key ? String(this.settings[key]) : '';
    return (configured || driver.defaultApiBaseUrl).replace(/\/+$/, '');
  }
}
