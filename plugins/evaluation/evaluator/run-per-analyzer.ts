import { SUCCESS_ANALYZER } from '../settings/evaluate-values';
import { LABEL_ANSWER, SUCCESS_ANSWER, type LabelAnswer, type SuccessAnswer } from './answer-schemas';
import type { EvaluationPlan } from './evaluation-plan';
import type { OutcomeRecorder } from './evaluation-outcome';
import { analyzerPrompt, successPrompt, summaryPrompt } from './prompts';

/**
 * The spec's mode: one call per enabled analyzer (its description as the instruction),
 * one for the success verdict when it has a prompt, one for the summary. The calls of
 * a session run at once: they are independent, and the session's transaction stays
 * open while they run.
 */
export async function runPerAnalyzer(recorder: OutcomeRecorder, plan: EvaluationPlan, transcript: string): Promise<void> {
  const calls: Array<Promise<void>> = plan.analyzers.map(async ({ name, description }) => {
    const answer = await recorder.json<LabelAnswer>('evaluation.analyzer', 'analyzer_label', LABEL_ANSWER, analyzerPrompt(description, transcript));
    if (answer.ok) recorder.label(name, answer.value.label, answer.raw);
    else recorder.analyzerFailed(name, answer.error, answer.raw);
  });

  const success = plan.success;
  if (success && success.prompt === '') recorder.noSuccessPrompt();
  else if (success) {
    calls.push(
      (async () => {
        const messages = successPrompt(success.description, success.prompt, transcript);
        const answer = await recorder.json<SuccessAnswer>('evaluation.analyzer', 'success_verdict', SUCCESS_ANSWER, messages);
        if (answer.ok) recorder.verdict(answer.value.success, answer.value.reason, answer.raw);
        else recorder.analyzerFailed(SUCCESS_ANALYZER, answer.error, answer.raw);
      })(),
    );
  }

  const summary = plan.summary;
  if (summary) {
    calls.push(
      (async () => {
        const answer = await recorder.text('evaluation.summary', summaryPrompt(summary.prompt, summary.language, transcript));
        if (answer.ok) recorder.summary(answer.value);
        else recorder.summaryFailed(answer.error);
      })(),
    );
  }

  await Promise.all(calls);
}
