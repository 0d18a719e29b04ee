/** Bus topics of the calls-outreach plugin (its own: nobody else consumes them). */
export const CALL_TASK_TOPICS = {
  /** Place the call of a make_call attempt, outside any transaction. */
  place: 'calls-outreach.place',
  /** An attempt whose call never told how it ended fails after this wait. */
  overdue: 'calls-outreach.overdue',
} as const;

/** What a make_call attempt hands to the placing consumer. */
export interface PlacePayload {
  task_uuid: string;
  attempt: number;
  agent_uuid: string;
  contact_uuid: string;
  to: string;
  from: string | null;
  campaign_uuid: string | null;
  voicemail: VoicemailOutcome;
}

export interface OverduePayload {
  task_uuid: string;
  attempt: number;
}

/** What a call ending on an answering machine does to its task: completes it (the default) or fails the attempt so it is retried. */
export const VOICEMAIL_OUTCOMES = ['complete', 'retry'] as const;
export type VoicemailOutcome = (typeof VOICEMAIL_OUTCOMES)[number];

/** What the call carries in its `metadata` (the calls plugin hands it back on every `call.status`). */
export interface CallTaskMetadata {
  task_uuid: string;
  task_attempt: number;
  campaign_uuid?: string;
  voicemail: VoicemailOutcome;
}
