/** The members of an agent's `settings.text` that pace its replies on a channel. */
export interface PacingSettings {
  timing_and_delay: {
    base_delay: number;
    pause_before_reply: number;
    typing_speed_wpm_min: number;
    typing_speed_wpm_max: number;
    delay_jitter_min: number;
    delay_jitter_max: number;
  };
  typing_simulation: { show_typing_indicator: boolean };
}

/** When one reply line is shown typing and when it is sent, in ms from the moment the turn answered. */
export interface PacedLine {
  typingAtMs: number;
  sendAtMs: number;
  /** Whether to show the typing indicator at `typingAtMs` (the agent's `show_typing_indicator`). */
  showTyping: boolean;
}

const between = (min: number, max: number, random: () => number) => (max > min ? min + (max - min) * random() : min);
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A reply's lines as a customer would see a person write them: before the first, the
 * agent's `base_delay` and `pause_before_reply`; each line then takes its typing time
 * (its words at a speed between `typing_speed_wpm_min` and `_max`) and a jitter between
 * `delay_jitter_min` and `_max`. The delays become due times of bus messages: no worker
 * sleeps through them.
 */
export function paceReply(lines: readonly string[], settings: PacingSettings, random: () => number = Math.random): PacedLine[] {
  const timing = settings.timing_and_delay;
  let clock = (Math.max(0, timing.base_delay) + Math.max(0, timing.pause_before_reply)) * 1000;
  return lines.map((line) => {
    const typingAtMs = clock;
    const wordsPerMinute = between(timing.typing_speed_wpm_min, timing.typing_speed_wpm_max, random);
    const typingMs = wordsPerMinute > 0 ? (words(line) / wordsPerMinute) * 60_000 : 0;
    const jitterMs = Math.max(0, between(timing.delay_jitter_min, timing.delay_jitter_max, random)) * 1000;
    clock = typingAtMs + typingMs + jitterMs;
    return { typingAtMs: Math.round(typingAtMs), sendAtMs: Math.round(clock), showTyping: settings.typing_simulation.show_typing_indicator };
  });
}
