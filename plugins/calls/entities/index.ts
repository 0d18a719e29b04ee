export { Call, CALL_STATUSES, ENDED_REASONS, type CallStatus, type EndedReason } from './call.entity';
