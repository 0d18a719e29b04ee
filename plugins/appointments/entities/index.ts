export { Schedule, type ScheduleQuestion } from './schedule.entity';
export { AvailabilityType } from './availability-type.entity';
export { Appointment, type AppointmentStatus } from './appointment.entity';
export { AppointmentRequest, type RequestKind, type RequestStatus } from './appointment-request.entity';
