import { Component, PageQuery, ReadOnly, ResourceId, Timestamp, Type, Uuid, type Static } from '../../core';

const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-4]):[0-5][0-9]$', description: 'Wall-clock time in the schedule’s zone, `HH:MM` (`24:00` ends a day)', examples: ['09:00'] });
const Interval = Type.Object({ start: HHMM, end: HHMM }, { additionalProperties: false });
const Intervals = Type.Array(Interval, { maxItems: 24 });
const WeeklyHours = Type.Object(
  { mon: Type.Optional(Intervals), tue: Type.Optional(Intervals), wed: Type.Optional(Intervals), thu: Type.Optional(Intervals), fri: Type.Optional(Intervals), sat: Type.Optional(Intervals), sun: Type.Optional(Intervals) },
  { additionalProperties: false, description: 'Opening hours per weekday, wall clock in `timezone`; a day left out is closed' },
);
const Exception = Type.Object(
  {
    date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'A local date in the schedule’s zone', examples: ['2026-12-24'] }),
    closed: Type.Optional(Type.Boolean({ description: 'Closed all day' })),
    hours: Type.Optional(Type.Array(Interval, { maxItems: 24, description: 'These hours instead of the weekday’s' })),
  },
  { additionalProperties: false },
);
const Question = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.String({ minLength: 1, maxLength: 40, description: 'Answer type, e.g. `text`' }),
    description: Type.String({ maxLength: 2000 }),
    required: Type.Boolean(),
  },
  { additionalProperties: false },
);
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone name', examples: ['Europe/Madrid'] });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const CALENDAR =
  'A flow connection of a calendar app (Google Calendar, CalDAV): its busy times block slots and the schedule’s appointments are written into it. ' +
  'Needs the appointments-calendar plugin (422 without it); null: none';

export const Schedule = Component(
  'Schedule',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Name,
      timezone: TimeZone,
      weekly_hours: WeeklyHours,
      exceptions: Type.Array(Exception, { maxItems: 1000, description: 'Dates whose hours differ from their weekday’s' }),
      questions: Type.Array(Question, { maxItems: 50, description: 'Asked when booking; an agent’s assignment with `questions.inherit_from_schedule` asks them too' }),
      calendar_connection_uuid: Type.Union([Uuid(), Type.Null()], { description: CALENDAR }),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { additionalProperties: false },
  ),
);
export type ScheduleJson = Static<typeof Schedule>;

const scheduleMembers = {
  name: Name,
  timezone: TimeZone,
  weekly_hours: WeeklyHours,
  exceptions: Schedule.properties.exceptions,
  questions: Schedule.properties.questions,
  calendar_connection_uuid: Type.Union([ResourceId('flows.connection'), Type.Null()], { description: CALENDAR }),
};
export const ScheduleCreate = Type.Object(
  { ...scheduleMembers, weekly_hours: Type.Optional(WeeklyHours), exceptions: Type.Optional(scheduleMembers.exceptions), questions: Type.Optional(scheduleMembers.questions), calendar_connection_uuid: Type.Optional(scheduleMembers.calendar_connection_uuid) },
  { additionalProperties: false },
);
export const SchedulePatch = Type.Partial(Type.Object(scheduleMembers, { additionalProperties: false }));

const Minutes = (description: string, minimum: number) => Type.Integer({ minimum, maximum: 1440, description });
export const AvailabilityType = Component(
  'AvailabilityType',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      name: Name,
      duration_minutes: Minutes('How long an appointment of this type lasts', 5),
      buffer_before: Minutes('Minutes kept free before it', 0),
      buffer_after: Minutes('Minutes kept free after it', 0),
      schedule_uuid: ResourceId('appointments.schedule', 'The schedule it is booked in'),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { additionalProperties: false },
  ),
);
export type AvailabilityTypeJson = Static<typeof AvailabilityType>;
const typeProperties = AvailabilityType.properties;
export const AvailabilityTypeCreate = Type.Object(
  {
    name: typeProperties.name,
    duration_minutes: typeProperties.duration_minutes,
    buffer_before: Type.Optional(typeProperties.buffer_before),
    buffer_after: Type.Optional(typeProperties.buffer_after),
    schedule_uuid: typeProperties.schedule_uuid,
  },
  { additionalProperties: false },
);
export const AvailabilityTypePatch = Type.Object(
  {
    name: Type.Optional(typeProperties.name),
    duration_minutes: Type.Optional(typeProperties.duration_minutes),
    buffer_before: Type.Optional(typeProperties.buffer_before),
    buffer_after: Type.Optional(typeProperties.buffer_after),
  },
  { additionalProperties: false, description: 'A type stays in its schedule; changes apply to appointments booked from now on' },
);
export const AvailabilityTypeQuery = PageQuery({ schedule_uuid: Type.Optional(Uuid({ description: 'Only this schedule’s types' })) });

export const SlotQuery = Type.Object(
  {
    availability_type_uuid: Type.Optional(ResourceId('appointments.availability_type', 'The type to fit: its duration and buffers; optional when the schedule has only one')),
    from: Type.Optional(Timestamp()),
    to: Type.Optional(Timestamp()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many slots (default 200)' })),
  },
  { additionalProperties: false },
);
export const SlotJson = Type.Object(
  {
    from: Timestamp(),
    to: Timestamp(),
    local_start: Type.String({ description: 'The slot’s start on the schedule’s wall clock, `YYYY-MM-DDTHH:MM`' }),
    utc_offset: Type.String({ description: 'The zone’s offset at the start, e.g. `+01:00` (a repeated local hour shows twice, with two offsets)' }),
  },
  { additionalProperties: false },
);
export const Slots = Component(
  'FreeSlots',
  Type.Object(
    {
      schedule_uuid: Uuid(),
      availability_type_uuid: Uuid(),
      timezone: Type.String({ description: 'The schedule’s zone, which `local_start` is in' }),
      from: Timestamp(),
      to: Timestamp(),
      slots: Type.Array(SlotJson),
    },
    { additionalProperties: false },
  ),
);

const Status = Type.Union([Type.Literal('pending_approval'), Type.Literal('confirmed'), Type.Literal('cancelled')], {
  description: '`pending_approval` holds its time until a request is decided; `cancelled` frees it',
});
const Answers = Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { description: 'Answers to the booking questions, by question name' });
const Notes = Type.String({ maxLength: 10_000 });

export const Appointment = Component(
  'Appointment',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      schedule_uuid: Uuid(),
      availability_type_uuid: Type.Union([Uuid(), Type.Null()]),
      contact_uuid: Type.Union([Uuid(), Type.Null()]),
      agent_uuid: Type.Union([Uuid(), Type.Null()]),
      conversation_uuid: ReadOnly(Type.Union([Uuid(), Type.Null()], { description: 'The conversation an agent booked it in' })),
      starts_at: Timestamp(),
      ends_at: ReadOnly(Timestamp()),
      timezone: ReadOnly(Type.String({ description: 'The schedule’s zone' })),
      status: Status,
      answers: Answers,
      notes: Notes,
      cancellation_reason: ReadOnly(Type.Union([Type.String(), Type.Null()])),
      cancelled_at: ReadOnly(Type.Union([Timestamp(), Type.Null()])),
      created_at: ReadOnly(Timestamp()),
      updated_at: ReadOnly(Timestamp()),
    },
    { additionalProperties: false },
  ),
);
export type AppointmentJson = Static<typeof Appointment>;

export const AppointmentCreate = Type.Object(
  {
    availability_type_uuid: ResourceId('appointments.availability_type', 'What is booked; its schedule is the appointment’s'),
    starts_at: Type.String({ format: 'date-time', description: 'A free slot’s `from` (`GET /schedules/{uuid}/slots`)' }),
    contact_uuid: Type.Optional(Type.Union([ResourceId('contacts.contact'), Type.Null()])),
    agent_uuid: Type.Optional(Type.Union([ResourceId('agents.agent'), Type.Null()])),
    answers: Type.Optional(Answers),
    notes: Type.Optional(Notes),
  },
  { additionalProperties: false },
);
export const AppointmentPatch = Type.Object(
  {
    contact_uuid: Type.Optional(Type.Union([ResourceId('contacts.contact'), Type.Null()])),
    agent_uuid: Type.Optional(Type.Union([ResourceId('agents.agent'), Type.Null()])),
    answers: Type.Optional(Answers),
    notes: Type.Optional(Notes),
  },
  { additionalProperties: false, description: 'Times change through `reschedule`, status through `cancel` and the approval requests' },
);
export const AppointmentQuery = PageQuery({
  schedule_uuid: Type.Optional(Uuid()),
  contact_uuid: Type.Optional(Uuid()),
  agent_uuid: Type.Optional(Uuid()),
  status: Type.Optional(Status),
  from: Type.Optional(Timestamp()),
  to: Type.Optional(Timestamp()),
});
export const CancelBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });
export const RescheduleBody = Type.Object(
  { starts_at: Type.String({ format: 'date-time', description: 'A free slot’s `from` for the appointment’s type' }) },
  { additionalProperties: false },
);

const RequestStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]);
export const AppointmentRequest = Component(
  'AppointmentRequest',
  Type.Object(
    {
      uuid: ReadOnly(Uuid()),
      kind: Type.Union([Type.Literal('create'), Type.Literal('reschedule'), Type.Literal('cancel')], { description: 'What the agent asked for' }),
      status: RequestStatus,
      appointment_uuid: Uuid(),
      agent_uuid: Type.Union([Uuid(), Type.Null()]),
      conversation_uuid: Type.Union([Uuid(), Type.Null()]),
      starts_at: Type.Union([Timestamp(), Type.Null()], { description: 'The time asked for (a booking’s or a reschedule’s); null for a cancellation' }),
      ends_at: Type.Union([Timestamp(), Type.Null()]),
      reason: Type.Union([Type.String(), Type.Null()]),
      expected_response_by: Type.Union([Timestamp(), Type.Null()], { description: 'created_at + the agent’s `approval.expected_response_time`' }),
      decided_at: Type.Union([Timestamp(), Type.Null()]),
      decision_note: Type.Union([Type.String(), Type.Null()]),
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    { additionalProperties: false },
  ),
);
export type AppointmentRequestJson = Static<typeof AppointmentRequest>;
export const RequestQuery = PageQuery({ status: Type.Optional(RequestStatus), agent_uuid: Type.Optional(Uuid()), appointment_uuid: Type.Optional(Uuid()) });
export const DecisionBody = Type.Object({ note: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });
