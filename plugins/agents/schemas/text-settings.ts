import { Component, Type, type Static } from '../../../core';
import { Clock, Label, Ratio, Seconds, Text, TimeZone, partialDeep, group } from './formats';

const WordsPerMinute = (description: string) => Type.Number({ minimum: 1, maximum: 1000, description });

/** `settings.text`: how the agent behaves on text channels. Every group and member of the spec. */
export const TextSettings = Component('TextSettings', Type.Object(
  {
    daily_limits: group(
      {
        daily_max_messages_per_conversation: Type.Integer({ minimum: 1, maximum: 100_000, description: 'Customer messages per conversation per local day (the agent’s time zone) that the agent answers; past it the limit message answers, without the model' }),
        daily_conversation_limit_exceeded_message: Text('Sent once when the daily limit is reached'),
      },
      'Per-conversation daily limits',
    ),
    timing_and_delay: group(
      {
        base_delay: Seconds('Seconds before every reply'),
        pause_before_reply: Seconds('Seconds of reading time before typing starts'),
        typing_speed_wpm_min: WordsPerMinute('Slowest simulated typing speed, words per minute'),
        typing_speed_wpm_max: WordsPerMinute('Fastest simulated typing speed, words per minute'),
        typing_speed_char: Seconds('Seconds per character when typing is simulated by character'),
        delay_jitter_min: Seconds('Least random extra delay, seconds'),
        delay_jitter_max: Seconds('Most random extra delay, seconds'),
      },
      'Reply timing (seconds, words per minute)',
    ),
    typing_simulation: group(
      { show_typing_indicator: Type.Boolean(), simulate_typing_breaks: Type.Boolean(), simulate_typos_corrections: Type.Boolean() },
      'Typing indicator behaviour',
    ),
    working_hours: group(
      {
        enabled: Type.Boolean(),
        start: Clock('Start of working hours, e.g. `9 AM`'),
        end: Clock('End of working hours, e.g. `5 PM`'),
        timezone: TimeZone('IANA time zone of the working hours'),
        outside_hours_behavior: Label('What happens outside working hours', 'Auto-reply'),
        offline_message: Text('Sent outside working hours'),
        during_hours_agent: Label('Who answers during working hours', 'ai'),
      },
      'When the agent answers',
    ),
    handover: group(
      {
        enabled: Type.Boolean(),
        handover_triggers: Label('What starts a handover to a human', 'User request'),
        handover_method: Label('How the handover is made', 'Assign agent'),
        handover_message: Text('Sent to the contact on handover'),
        assignment_strategy: Label('Which human gets the conversation', 'First available'),
        handover_timeout: Type.Integer({ minimum: 0, maximum: 86_400, description: 'Seconds to wait for a human before the fallback' }),
        fallback_agent: Label('Who answers when no human takes over', 'Bot assistant'),
      },
      'Handing the conversation to a human',
    ),
    confidence_controls: group(
      { min_confidence_threshold: Ratio('Least confidence (0 to 1) to answer without clarifying'), ask_clarifying_questions: Type.Boolean() },
      'Answering under uncertainty',
    ),
    message_behavior: group(
      {
        second_message_behavior: group(
          { enabled: Type.Boolean(), chance: Ratio('Probability (0 to 1) of a second message'), delay_min: Seconds('Seconds'), delay_max: Seconds('Seconds') },
          'An occasional second message after a reply',
        ),
        follow_up_behavior: group(
          { enabled: Type.Boolean(), delay_min: Seconds('Seconds'), delay_max: Seconds('Seconds') },
          'A follow-up when the contact goes quiet',
        ),
      },
      'Extra messages',
    ),
    personality: group(
      {
        use_response_variations: Type.Boolean(),
        emoji_usage: Label('How often emoji are used', 'None'),
        use_punctuation_variation: Type.Boolean(),
        use_filler_words: Type.Boolean(),
        enable_small_talk: Type.Boolean(),
        energy_level: Label('Energy of the replies', 'Friendly'),
        empathy_level: Label('Empathy of the replies', 'Medium'),
      },
      'Style of the replies',
    ),
    advanced: group(
      { split_messages: Type.Boolean(), simulate_message_editing: Type.Boolean(), use_memory_based_context: Type.Boolean(), human_first_mode: Type.Boolean() },
      'Advanced behaviour',
    ),
  },
  { additionalProperties: false, description: 'Text-channel behaviour, by group' },
));
export type TextSettings = Static<typeof TextSettings>;

export const TextSettingsWrite = partialDeep(TextSettings);

/** Our defaults for what the spec leaves open; GET always shows the effective values. */
export const textDefaults: TextSettings = {
  daily_limits: { daily_max_messages_per_conversation: 100, daily_conversation_limit_exceeded_message: '' },
  timing_and_delay: {
    base_delay: 1,
    pause_before_reply: 0.5,
    typing_speed_wpm_min: 40,
    typing_speed_wpm_max: 60,
    typing_speed_char: 0.05,
    delay_jitter_min: 0,
    delay_jitter_max: 1,
  },
  typing_simulation: { show_typing_indicator: true, simulate_typing_breaks: false, simulate_typos_corrections: false },
  working_hours: {
    enabled: false,
    start: '9 AM',
    end: '5 PM',
    timezone: 'UTC',
    outside_hours_behavior: 'Auto-reply',
    offline_message: '',
    during_hours_agent: 'ai',
  },
  handover: {
    enabled: false,
    handover_triggers: 'User request',
    handover_method: 'Assign agent',
    handover_message: '',
    assignment_strategy: 'First available',
    handover_timeout: 300,
    fallback_agent: 'Bot assistant',
  },
  confidence_controls: { min_confidence_threshold: 0.6, ask_clarifying_questions: true },
  message_behavior: {
    second_message_behavior: { enabled: false, chance: 0.2, delay_min: 2, delay_max: 6 },
    follow_up_behavior: { enabled: false, delay_min: 600, delay_max: 3600 },
  },
  personality: {
    use_response_variations: true,
    emoji_usage: 'None',
    use_punctuation_variation: false,
    use_filler_words: false,
    enable_small_talk: true,
    energy_level: 'Friendly',
    empathy_level: 'Medium',
  },
  advanced: { split_messages: false, simulate_message_editing: false, use_memory_based_context: true, human_first_mode: false },
};
