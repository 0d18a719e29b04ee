// What a turn decides from the agent's settings alone, before or after the model call.
export { workingHours, clockMinutes, type WorkingHours } from './working-hours';
export { dailyLimit, customerMessagesSinceIn, DEFAULT_DAILY_LIMIT_MESSAGE, type DailyLimit } from './daily-limit';
export { splitMessages } from './split-messages';
export { guardRulesFor, activeRoutingRules, conversationChannel } from './rule-selection';
export { localDayStart, localParts, formatLocalTime, formatLocalDate, isTimeZone, zoneOrUtc, type LocalParts } from './local-time';
