import { isVoiceChannel, type Channel } from '../../conversations';
import type { SettingsSource } from '../settings/evaluate-store';
import { ANALYZERS, SUCCESS_ANALYZER, type EvaluateValues, type EvaluationMode, type LabelAnalyzerName } from '../settings/evaluate-values';

export type AnalyzerBlockName = 'text' | 'voice';

/** What one session's evaluation asks the model, decided from the effective settings before any call. */
export interface EvaluationPlan {
  block: AnalyzerBlockName;
  mode: EvaluationMode;
  settingsSource: SettingsSource;
  /** The enabled analyzers that emit a label, in the spec's order. */
  analyzers: Array<{ name: LabelAnalyzerName; description: string }>;
  /** The success verdict when enabled; an empty `prompt` means no verdict can be asked for. */
  success: { description: string; prompt: string } | null;
  /** The summary, unless its prompt is empty. */
  summary: { prompt: string; language: string } | null;
}

/** Calls (`voice`, `chatapp_call`) get the voice block, every other channel the text block. */
export const blockFor = (channel: Channel): AnalyzerBlockName => (isVoiceChannel(channel) ? 'voice' : 'text');

/** The plan, or null when the settings are not active (`is_active=false`: no analyzer, no summary, no record). */
export function planFor(values: EvaluateValues, source: SettingsSource, channel: Channel): EvaluationPlan | null {
  if (!values.is_active) return null;
  const block = blockFor(channel);
  const analyzers = values[block];
  const labelAnalyzers = ANALYZERS.filter((name): name is LabelAnalyzerName => name !== SUCCESS_ANALYZER && analyzers[name].enabled);
  const success = analyzers.success_evaluation_prompt;
  const summaryPrompt = values.sessionization.summary_prompt.trim();
  return {
    block,
    mode: values.mode,
    settingsSource: source,
    analyzers: labelAnalyzers.map((name) => ({ name, description: analyzers[name].description })),
    success: success.enabled ? { description: success.description, prompt: success.prompt.trim() } : null,
    summary: summaryPrompt ? { prompt: summaryPrompt, language: values.sessionization.report_language } : null,
  };
}
