import { paceReply, type PacingSettings } from '../../../plugins/channels/turns/pacing';
import { retryDelayMs } from '../../../plugins/channels/outbound/outbound-consumers';

const settings = (timing: Partial<PacingSettings['timing_and_delay']>, showTyping = true): PacingSettings => ({
  timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 60, typing_speed_wpm_max: 60, delay_jitter_min: 0, delay_jitter_max: 0, ...timing },
  typing_simulation: { show_typing_indicator: showTyping },
});

describe('reply pacing', () => {
  it('waits base_delay and pause_before_reply, then each line’s typing time at the agent’s speed, one after another', () => {
    // 60 words a minute: a word a second.
    const paced = paceReply(['one two three', 'four five'], settings({ base_delay: 1, pause_before_reply: 0.5 }));
    expect(paced).toEqual([
      { typingAtMs: 1500, sendAtMs: 4500, showTyping: true },
      { typingAtMs: 4500, sendAtMs: 6500, showTyping: true },
    ]);
  });

  it('draws speed and jitter between their bounds', () => {
    const slow = paceReply(['a b'], settings({ typing_speed_wpm_min: 30, typing_speed_wpm_max: 120, delay_jitter_min: 1, delay_jitter_max: 3 }), () => 0);
    const fast = paceReply(['a b'], settings({ typing_speed_wpm_min: 30, typing_speed_wpm_max: 120, delay_jitter_min: 1, delay_jitter_max: 3 }), () => 1);
    expect(slow[0].sendAtMs).toBe(4000 + 1000);
    expect(fast[0].sendAtMs).toBe(1000 + 3000);
  });

  it('says whether to show typing, as the agent’s typing_simulation does', () => {
    expect(paceReply(['hi'], settings({}, false))[0].showTyping).toBe(false);
  });
});

describe('send retry delays', () => {
  it('grow fourfold from the configured first delay, and honour a longer Retry-After', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, 2000, null))).toEqual([2000, 8000, 32000]);
    expect(retryDelayMs(1, 2000, 30)).toBe(30_000);
    expect(retryDelayMs(3, 2000, 1)).toBe(32_000);
    expect(retryDelayMs(20, 2000, null)).toBe(3_600_000);
  });
});
