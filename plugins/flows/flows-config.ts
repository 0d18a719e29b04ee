/** The flows plugin's settings (`config.flows`), typed where read through `configRef(flowsConfig)`. */
export const flowsConfig = {
  maxStepsPerFlow: { doc: 'Most steps one flow may have', format: 'nat', default: 200, env: 'FLOWS_MAX_STEPS_PER_FLOW' },
  executionRetentionDays: { doc: 'Executions older than this many days are deleted', format: 'nat', default: 30, env: 'FLOWS_EXECUTION_RETENTION_DAYS' },
  oauthRedirectUrl: {
    doc: 'The redirect URI registered with every OAuth app (`https://switchboard.example.com/oauth/callback`); empty: this server as each start request reached it',
    format: String,
    default: '',
    env: 'OAUTH_REDIRECT_URL',
  },
  pollIntervalSeconds: {
    doc: 'Seconds between two polls of every polling trigger (a connect app asking its vendor what is new); 0: each trigger polls at its own interval',
    format: 'nat',
    default: 0,
    env: 'FLOWS_POLL_INTERVAL_SECONDS',
  },
  engineConcurrency: { doc: 'Execution segments one worker process runs at once', format: 'nat', default: 8, env: 'FLOWS_ENGINE_CONCURRENCY' },
};
