/**
 * The JSON Schemas of the model's structured answers. Extra members are tolerated
 * (local models like to add a `confidence`); what is asked for must be there.
 */

/** One analyzer's answer: `{label}`. */
export const LABEL_ANSWER = {
  type: 'object',
  properties: { label: { type: 'string', description: 'The label, short and lowercase' } },
  required: ['label'],
} as const;

/** The success verdict: `{success, reason}`. */
export const SUCCESS_ANSWER = {
  type: 'object',
  properties: {
    success: { type: 'boolean', description: 'Whether the session was a success by the criterion' },
    reason: { type: 'string', description: 'One sentence saying why' },
  },
  required: ['success', 'reason'],
} as const;

export const SUMMARY_ANSWER = { type: 'string', description: 'The session’s summary' } as const;

export interface LabelAnswer {
  label: string;
}

export interface SuccessAnswer {
  success: boolean;
  reason: string;
}

export const isLabelAnswer = (value: unknown): value is LabelAnswer =>
  typeof value === 'object' && value !== null && typeof (value as LabelAnswer).label === 'string';

export const isSuccessAnswer = (value: unknown): value is SuccessAnswer =>
  typeof value === 'object' && value !== null && typeof (value as SuccessAnswer).success === 'boolean' && typeof (value as SuccessAnswer).reason === 'string';
