// Wall-clock time in IANA zones lives in the kernel (core/time/zone-time.ts); the slot
// engine keeps importing it from here under the same names.
export { isTimeZone, assertTimeZone, localParts, offsetMsAt, offsetAt, formatOffset, type LocalParts } from '../../../core';
export { formatDate, parseDate, clockMinutes, addDays, isoWeekdayIndex } from '../../../core';
export { localDateOf, localDateTimeOf, describeInstant, wallClockToInstants, resolveWallClock, localDayStart } from '../../../core';
