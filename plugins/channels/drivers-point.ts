import { createExtensionPoint } from '../../core';
import type { ChannelDriver } from './driver';

/** Where plugins add channel drivers, one per provider; two drivers of one provider are a boot error. */
export const channelDrivers = createExtensionPoint<ChannelDriver<any>>({ id: 'channels.drivers', keyOf: (driver) => driver.provider });
