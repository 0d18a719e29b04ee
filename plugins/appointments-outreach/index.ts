import { definePlugin } from '../../core';
import { contributeTaskExecutor } from '../outreach';
import { appointmentExecutor } from './appointment-executor';

export { appointmentExecutor } from './appointment-executor';
export { APPOINTMENT_PLACEHOLDERS, DEFAULT_TEXTS, type AppointmentPurpose } from './appointment-text';

/**
 * The link between three areas (Medusa's module links), as channels-outreach is for
 * send_message: outreach runs tasks by type, the appointments plugin keeps the
 * appointments, the channels plugin sends messages; this plugin gives outreach the
 * `appointment` executor, so an install without one of them still boots the others.
 */
export default definePlugin({
  ...contributeTaskExecutor(appointmentExecutor),
});
