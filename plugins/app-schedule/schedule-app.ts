import { Type, ValidationError, type BusService } from '../../core';
import { defineFlowApp, defineTrigger, type TriggerLifecycleContext } from '../flows';
import { EVERY_UNITS, cronProblems, nextTick, type ScheduleKey } from './schedule';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2f855a" stroke-width="2"><circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 3"/></svg>').toString(
    'base64',
  );

/** Delayed messages that fire a deployed schedule: one pending per live version. */
export const TICK_TOPIC = 'schedule.tick';

export interface TickMessage {
  version_uuid: string;
  step_uuid: string;
  trigger: ScheduleKey;
  /** When this tick is due (ISO 8601). */
  tick_at: string;
}

/**
 * Publishes a tick in the current transaction. The key is the version's: a pending tick
 * of the same version is replaced, so a version never has two chains of ticks.
 */
export function publishTick(bus: BusService, tick: TickMessage): Promise<string> {
  return bus.publish(TICK_TOPIC, tick, { at: new Date(tick.tick_at), key: `version:${tick.version_uuid}` });
}

/** The first tick of a version being deployed. */
function firstTick(trigger: ScheduleKey) {
  return async (context: TriggerLifecycleContext<unknown>): Promise<void> => {
    const config = context.input as Record<string, unknown>;
    const at = nextTick(trigger, config, new Date());
    await publishTick(context.bus, { version_uuid: context.step.versionUuid, step_uuid: context.step.stepUuid, trigger, tick_at: at.toISOString() });
  };
}

const OUTPUT_SAMPLE = { tick_at: '2025-01-01T09:00:00.000Z', fired_at: '2025-01-01T09:00:00.120Z' };
const OUTPUT_DOC =
  'Its output is `{tick_at, fired_at}`: when the tick was due and when a worker fired it. Ticks missed while no worker ran are not made up: the late one fires once. ' +
  'Each tick starts one execution, however many workers run.';

const every = defineTrigger({
  key: 'every',
  name: 'Every interval',
  description: `Starts the flow every \`amount\` \`unit\`s, the first time one interval after deploy. ${OUTPUT_DOC}`,
  input: Type.Object(
    {
      amount: Type.Integer({ minimum: 1, maximum: 1000, description: 'How many units between two runs' }),
      unit: Type.Unsafe<keyof typeof EVERY_UNITS>({ type: 'string', enum: Object.keys(EVERY_UNITS), description: '`seconds`, `minutes`, `hours` or `days`' }),
    },
    { additionalProperties: false },
  ),
  outputSample: OUTPUT_SAMPLE,
  onDeploy: firstTick('every'),
});

const cron = defineTrigger({
  key: 'cron',
  name: 'Cron schedule',
  description:
    'Starts the flow at the times a cron expression names, in a time zone. The expression has 5 fields (minute hour day-of-month month day-of-week; ' +
    'names such as `MON` or `JAN` allowed) or is one of @yearly, @annually, @monthly, @weekly, @daily, @hourly, @weekdays, @weekends. ' +
    `An expression or time zone that does not parse makes deploy answer 422 naming \`config.expression\` or \`config.timezone\`. ${OUTPUT_DOC}`,
  input: Type.Object(
    {
      expression: Type.String({
        pattern: '^\\s*(@(yearly|annually|monthly|weekly|daily|hourly|weekdays|weekends)|[0-9A-Za-z*,/?#-]+(\\s+[0-9A-Za-z*,/?#-]+){4})\\s*$',
        maxLength: 200,
        description: 'e.g. `0 9 * * 1-5` (9:00 on weekdays)',
        examples: ['0 9 * * 1-5'],
      }),
      timezone: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_+/-]{0,63}$', description: 'An IANA time zone name; `UTC` by default', examples: ['Europe/Madrid'] })),
    },
    { additionalProperties: false },
  ),
  outputSample: OUTPUT_SAMPLE,
  async onDeploy(context) {
    const problems = cronProblems(context.input);
    if (problems) throw new ValidationError(problems);
    await firstTick('cron')(context);
  },
});

/** The `schedule` app: flows started by the clock (builtin, no connection). */
export const scheduleApp = defineFlowApp({
  uid: 'schedule',
  name: 'Schedule',
  description: 'Start a flow at an interval or on a cron schedule',
  icon: ICON,
  category: 'builtin',
  triggers: [every, cron],
});
