import { Component, Type, Uuid, type Static, type TSchema } from '../../../core';
import { Label, Span, Text, partialDeep, group } from './formats';

const CustomQuestion = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Label('Answer type', 'text'),
    description: Text(),
    required: Type.Boolean(),
  },
  { additionalProperties: false },
);

const ScheduleAssignment = Type.Object(
  {
    schedule_uuid: Uuid({ description: 'The schedule the agent books into' }),
    name: Type.String({ maxLength: 200 }),
    description: Text(),
    slot_rules: group(
      {
        offer_slots_from: Span('Earliest slot offered, from now'),
        book_slots_from: Span('Earliest slot that can be booked, from now'),
        max_appointments_per_day: Type.Integer({ minimum: 0, maximum: 10_000 }),
        conflict_resolution_enabled: Type.Boolean(),
        alternative_slots_count: Type.Integer({ minimum: 0, maximum: 50 }),
        suggestion_priority: Label('Which slots are suggested first', 'nearest'),
        prefer_same_day: Type.Boolean(),
        prefer_same_time_slot: Type.Boolean(),
        include_same_week: Type.Boolean(),
      },
      'Which slots are offered',
    ),
    rescheduling: group(
      {
        policy: Label('When the agent may reschedule', 'always_ask'),
        minor_change_hours: Type.Integer({ minimum: 0, maximum: 8760 }),
        minor_change_same_day: Type.Boolean(),
        minor_change_same_week: Type.Boolean(),
        minor_change_same_slot: Type.Boolean(),
        min_rescheduling_notice: Span('Least notice for a reschedule'),
      },
      'Rescheduling',
    ),
    cancellation: group(
      {
        min_cancellation_notice: Span('Least notice for a cancellation'),
        ai_can_cancel: Type.Boolean(),
        require_cancellation_reason: Type.Boolean(),
        cancellation_fee_policy: Label('Fee on cancellation', 'no_fee'),
      },
      'Cancellation',
    ),
    questions: group(
      { inherit_from_schedule: Type.Boolean(), custom_questions: Type.Array(CustomQuestion, { maxItems: 50 }) },
      'Questions asked when booking',
    ),
    approval: group(
      {
        require_approval: Type.Boolean(),
        approval_threshold: Span('Changes closer than this need approval'),
        approval_for_create: Type.Boolean(),
        approval_for_reschedule: Type.Boolean(),
        approval_for_cancel: Type.Boolean(),
        approval_for_notes: Type.Boolean(),
        notify_calendar_owner: Label('When the calendar owner is notified', 'always'),
        notify_admins: Label('When admins are notified', 'always'),
        expected_response_time: Span('How soon an approval is expected'),
      },
      'Human approval',
    ),
  },
  { additionalProperties: false },
);

/** `appointments`: the agent's appointment scheduling configuration. */
export const Appointments = Component('Appointments', Type.Object(
  {
    enabled: Type.Boolean(),
    random_assignment: Type.Boolean({ description: 'Spread bookings randomly over the assigned schedules' }),
    schedule_assignments: Type.Array(ScheduleAssignment, { maxItems: 50 }),
  },
  { additionalProperties: false },
));
export type Appointments = Static<typeof Appointments>;
export type ScheduleAssignment = Static<typeof ScheduleAssignment>;
export { ScheduleAssignment as ScheduleAssignmentSchema };

/**
 * The write form: top-level members and every group of an assignment are optional
 * (only `schedule_uuid` is needed); each assignment is sent whole, defaults fill
 * what it leaves out.
 */
const ScheduleAssignmentWrite: TSchema = { ...partialDeep(ScheduleAssignment), required: ['schedule_uuid'] };

export const AppointmentsWrite = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    random_assignment: Type.Optional(Type.Boolean()),
    schedule_assignments: Type.Optional(Type.Array(ScheduleAssignmentWrite, { maxItems: 50 })),
  },
  { additionalProperties: false },
);

export const appointmentsDefaults: Omit<Appointments, 'schedule_assignments'> & { schedule_assignments: [] } = {
  enabled: false,
  random_assignment: false,
  schedule_assignments: [],
};

/** What an assignment has for each member the client left out. */
export const assignmentDefaults: Omit<ScheduleAssignment, 'schedule_uuid'> = {
  name: '',
  description: '',
  slot_rules: {
    offer_slots_from: '1_hours',
    book_slots_from: '1_hours',
    max_appointments_per_day: 20,
    conflict_resolution_enabled: true,
    alternative_slots_count: 3,
    suggestion_priority: 'nearest',
    prefer_same_day: false,
    prefer_same_time_slot: false,
    include_same_week: true,
  },
  rescheduling: {
    policy: 'always_ask',
    minor_change_hours: 2,
    minor_change_same_day: true,
    minor_change_same_week: false,
    minor_change_same_slot: false,
    min_rescheduling_notice: '2_hours',
  },
  cancellation: { min_cancellation_notice: '24_hours', ai_can_cancel: false, require_cancellation_reason: true, cancellation_fee_policy: 'no_fee' },
  questions: { inherit_from_schedule: true, custom_questions: [] },
  approval: {
    require_approval: false,
    approval_threshold: '1_hour',
    approval_for_create: false,
    approval_for_reschedule: false,
    approval_for_cancel: false,
    approval_for_notes: false,
    notify_calendar_owner: 'always',
    notify_admins: 'always',
    expected_response_time: '5_min',
  },
};
