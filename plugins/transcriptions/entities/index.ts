export { Transcription, TRANSCRIPTION_STATUSES, type TranscriptionStatus, type TranscriptionResult, type StoredSegment } from './transcription.entity';
