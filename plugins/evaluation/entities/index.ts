export { EvaluateSettings } from './evaluate-settings.entity';
export { Evaluation, type AnalyzerResult, type EvaluationStatus } from './evaluation.entity';
