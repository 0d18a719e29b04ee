import { NotFoundError } from '../../../core';

export const TRANSCRIPTION_NOT_FOUND = 'Transcription not found';

/** 404 with the spec's lookup-failure body: `{success: false, message: "Transcription not found", errors: [string]}`. */
export class TranscriptionNotFoundError extends NotFoundError {
  constructor(readonly transcriptionUuid: string) {
    super(TRANSCRIPTION_NOT_FOUND);
  }

  override body(): unknown {
    return { success: false, message: this.message, errors: [`No transcription ${this.transcriptionUuid} in this workspace`] };
  }
}
