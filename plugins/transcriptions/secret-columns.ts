import { defineSecretColumn } from '../../core';

/** The Standard Webhooks secret of a transcription's completion callback. */
export const callbackSecretColumn = defineSecretColumn({ table: 'transcriptions', column: 'callback_secret', entity: 'transcription', field: 'callback_secret' });
