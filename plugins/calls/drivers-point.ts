import { createExtensionPoint } from '../../core';
import type { TelephonyDriver } from './driver';

/** Where plugins add telephony drivers, one per provider; two drivers of one provider are a boot error. */
export const telephonyDrivers = createExtensionPoint<TelephonyDriver<any>>({ id: 'calls.telephonyDrivers', keyOf: (driver) => driver.provider });
