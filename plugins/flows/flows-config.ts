/** The flows plugin's settings (`config.flows`), typed where read through `configRef(flowsConfig)`. */
export const flowsConfig = {
  maxStepsPerFlow: { doc: 'Most steps one flow may have', format: 'nat', default: 200, env: 'FLOWS_MAX_STEPS_PER_FLOW' },
  executionRetentionDays: { doc: 'Executions older than this many days are deleted', format: 'nat', default: 30, env: 'FLOWS_EXECUTION_RETENTION_DAYS' },
  engineConcurrency: { doc: 'Execution segments one worker process runs at once', format: 'nat', default: 8, env: 'FLOWS_ENGINE_CONCURRENCY' },
};
