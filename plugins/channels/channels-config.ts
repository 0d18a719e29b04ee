/** The channels plugin's settings (`config.channels`), read through `configRef(channelsConfig)`. */
export const channelsConfig = {
  twilioApiBaseUrl: { doc: 'The Twilio REST API base URL', format: String, default: 'https://api.twilio.com', env: 'TWILIO_API_BASE_URL' },
  chatappApiBaseUrl: { doc: 'The Graph API base URL the chatapp (WhatsApp Cloud API shape) is reached at', format: String, default: 'https://graph.facebook.com/v21.0', env: 'CHATAPP_API_BASE_URL' },
  socialApiBaseUrl: { doc: 'The Graph API base URL social messaging (Messenger, Instagram) is reached at', format: String, default: 'https://graph.facebook.com/v21.0', env: 'SOCIAL_API_BASE_URL' },
  telegramApiBaseUrl: { doc: 'The Telegram Bot API base URL', format: String, default: 'https://api.telegram.org', env: 'TELEGRAM_API_BASE_URL' },
  publicBaseUrl: {
    doc: 'The public URL of this server (`https://switchboard.example.com`), from which hook URLs are built and inbound signatures checked; empty: as each request reached it',
    format: String,
    default: '',
    env: 'PUBLIC_BASE_URL',
  },
  sendAttempts: { doc: 'Tries of one outbound message when the provider answers 429, 5xx or cannot be reached, before it is `failed`', format: 'nat', default: 6, env: 'CHANNELS_SEND_ATTEMPTS' },
  inboundRetentionDays: {
    doc: 'Days the ids of inbound messages are kept, so that a provider retrying one is answered once; older ones are deleted hourly (0: kept for ever)',
    format: 'nat',
    default: 7,
    env: 'CHANNELS_INBOUND_RETENTION_DAYS',
  },
  audioAttempts: {
    doc: 'Tries of fetching and transcribing an inbound voice note (a 429, 5xx or network failure of the provider or the transcription server is tried again); after the last the agent answers a placeholder',
    format: 'nat',
    default: 4,
    env: 'CHANNELS_AUDIO_ATTEMPTS',
  },
  audioBackoffMs: { doc: 'Milliseconds before the first retry of an inbound voice note; each later retry waits 4 times longer (at most 10 minutes)', format: 'nat', default: 3000, env: 'CHANNELS_AUDIO_BACKOFF_MS' },
  sendBackoffMs: { doc: 'Milliseconds before the first retry of a send; each later retry waits 4 times longer (at most an hour), or what the provider asks', format: 'nat', default: 2000, env: 'CHANNELS_SEND_BACKOFF_MS' },
  sendWaitLimitMs: {
    doc: 'Longest a message waits for an earlier one to the same customer that is still unsettled (its send dead-lettered, say) before it goes anyway',
    format: 'nat',
    default: 6 * 3_600_000,
    env: 'CHANNELS_SEND_WAIT_LIMIT_MS',
  },
};
