import type { SessionMode } from '../../conversations';

/** The analyzers of each block, in the spec's order. Each emits one label per session. */
export const ANALYZERS = [
  'sentiment_analyzer',
  'emotion_detection',
  'intensity_strength_levels',
  'intent_action_sentiment',
  'intent_labels',
  'knowledge_gap',
  'human_escalation_detection',
  'contextual_sentiment',
  'customer_satisfaction_score',
  'success_evaluation_prompt',
] as const;
export type AnalyzerName = (typeof ANALYZERS)[number];
/** The analyzers that emit a free label (every one but the success prompt, which answers true or false). */
export type LabelAnalyzerName = Exclude<AnalyzerName, 'success_evaluation_prompt'>;
export const SUCCESS_ANALYZER = 'success_evaluation_prompt' satisfies AnalyzerName;

export interface AnalyzerSettings {
  enabled: boolean;
  /** The instruction to the model. */
  description: string;
}

export interface SuccessAnalyzerSettings extends AnalyzerSettings {
  /** What counts as success; empty makes the verdict meaningless, so it is recorded as null. */
  prompt: string;
}

export type AnalyzerBlock = { [K in LabelAnalyzerName]: AnalyzerSettings } & { success_evaluation_prompt: SuccessAnalyzerSettings };

export interface SessionizationValues {
  session_mode: SessionMode;
  timeout_minutes: number;
  report_language: string;
  summary_prompt: string;
}

/**
 * `per_analyzer` (the spec's: one model call per enabled analyzer, plus the summary) or
 * `batched` (one structured-output call answering every enabled analyzer and the summary).
 */
export const EVALUATION_MODES = ['per_analyzer', 'batched'] as const;
export type EvaluationMode = (typeof EVALUATION_MODES)[number];

/** Every value of an evaluate settings row, as the API names them. */
export interface EvaluateValues {
  is_active: boolean;
  mode: EvaluationMode;
  sessionization: SessionizationValues;
  text: AnalyzerBlock;
  voice: AnalyzerBlock;
}

const DESCRIPTIONS: Record<LabelAnalyzerName, string> = {
  sentiment_analyzer: 'The customer’s overall sentiment in this session: one of positive, neutral, negative.',
  emotion_detection: 'The customer’s dominant emotion: one of joy, trust, fear, surprise, sadness, disgust, anger, anticipation, none.',
  intensity_strength_levels: 'How strongly the customer expressed that emotion: one of low, medium, high.',
  intent_action_sentiment: 'What the customer wanted to do and how they felt about it, as intent:sentiment, e.g. cancel_subscription:negative.',
  intent_labels: 'The customer’s main intent in a few lowercase words joined by underscores, e.g. book_appointment.',
  knowledge_gap: 'Whether the agent lacked information the customer asked for: yes or no.',
  human_escalation_detection: 'Whether the customer asked for, or needed, a human: yes or no.',
  contextual_sentiment: 'The sentiment towards the company or product in context: one of positive, neutral, negative, mixed.',
  customer_satisfaction_score: 'The satisfaction the customer would likely report, from 1 (very dissatisfied) to 5 (very satisfied).',
};

function defaultBlock(): AnalyzerBlock {
  const block = Object.fromEntries(Object.entries(DESCRIPTIONS).map(([name, description]) => [name, { enabled: false, description }])) as AnalyzerBlock;
  block.success_evaluation_prompt = {
    enabled: false,
    description: 'Whether the session achieved its goal, judged by the prompt: true or false.',
    prompt: '',
  };
  return block;
}

/** A tenant's default before it is first saved: every analyzer off, 30 minutes of idleness. */
export function builtInDefaults(): EvaluateValues {
  return {
    is_active: true,
    mode: 'per_analyzer',
    sessionization: {
      session_mode: 'sliding_timeout',
      timeout_minutes: 30,
      report_language: 'en',
      summary_prompt: 'Summarize the session in three sentences at most: what the customer wanted, what the agent did, and how it ended.',
    },
    text: defaultBlock(),
    voice: defaultBlock(),
  };
}
