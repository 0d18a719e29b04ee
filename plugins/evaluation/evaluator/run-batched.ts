import { LlmResponseError, salvageAnswer } from '../../../core';
import { SUCCESS_ANALYZER } from '../settings/evaluate-values';
import { LABEL_ANSWER, SUCCESS_ANSWER, SUMMARY_ANSWER, isLabelAnswer, isSuccessAnswer } from './answer-schemas';
import type { EvaluationPlan } from './evaluation-plan';
import type { OutcomeRecorder } from './evaluation-outcome';
import { batchedPrompt } from './prompts';

/**
 * The cost option: one structured-output call whose answer has a member per enabled
 * analyzer, the success verdict (when it has a prompt) and the summary. When the
 * answer does not conform as a whole, the members that do are still kept: one bad
 * member fails its analyzer, not the session.
 */
export async function runBatched(recorder: OutcomeRecorder, plan: EvaluationPlan, transcript: string): Promise<void> {
  const askSuccess = plan.success !== null && plan.success.prompt !== '';
  if (plan.success && !askSuccess) recorder.noSuccessPrompt();
  if (plan.analyzers.length === 0 && !askSuccess && !plan.summary) return;

  const properties: Record<string, unknown> = Object.create(null); // analyzer names are the user's
  for (const { name } of plan.analyzers) properties[name] = LABEL_ANSWER;
  if (askSuccess) properties[SUCCESS_ANALYZER] = SUCCESS_ANSWER;
  if (plan.summary) properties.summary = SUMMARY_ANSWER;
  const schema = { type: 'object', properties, required: Object.keys(properties) };
  const messages = batchedPrompt({ analyzers: plan.analyzers, success: askSuccess ? plan.success : null, summary: plan.summary }, transcript);

  const answer = await recorder.json<Record<string, unknown>>('evaluation.batched', 'session_evaluation', schema, messages);
  // A whole answer that conforms, or the parts of one that does not (when it is JSON at all).
  const parsed = answer.ok ? answer.value : salvageAnswer(answer.error);
  // Why a member is missing: the call's own failure, unless the answer was JSON and only some members are wrong.
  const problem = (member: string) =>
    !answer.ok && parsed === null ? answer.error : new LlmResponseError(`the model's answer has no valid "${member}" member`, answer.raw);

  for (const { name } of plan.analyzers) {
    const part = parsed?.[name];
    if (isLabelAnswer(part)) recorder.label(name, part.label, JSON.stringify(part));
    else recorder.analyzerFailed(name, problem(name), answer.raw);
  }
  if (askSuccess) {
    const part = parsed?.[SUCCESS_ANALYZER];
    if (isSuccessAnswer(part)) recorder.verdict(part.success, part.reason, JSON.stringify(part));
    else recorder.analyzerFailed(SUCCESS_ANALYZER, problem(SUCCESS_ANALYZER), answer.raw);
  }
  if (plan.summary) {
    const part = parsed?.summary;
    if (typeof part === 'string' && part.trim() !== '') recorder.summary(part.trim());
    else recorder.summaryFailed(problem('summary'));
  }
}
