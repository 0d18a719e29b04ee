import { spanMinutes } from '../../../../plugins/appointments/slots';

describe('spanMinutes', () => {
  it('reads each unit, singular and plural', () => {
    expect(spanMinutes('2_hours')).toBe(120);
    expect(spanMinutes('1_hour')).toBe(60);
    expect(spanMinutes('30_min')).toBe(30);
    expect(spanMinutes('45_mins')).toBe(45);
    expect(spanMinutes('1_minute')).toBe(1);
    expect(spanMinutes('90_minutes')).toBe(90);
    expect(spanMinutes('1_day')).toBe(1440);
    expect(spanMinutes('3_days')).toBe(4320);
    expect(spanMinutes('1_week')).toBe(10080);
    expect(spanMinutes('2_weeks')).toBe(20160);
    expect(spanMinutes('0_minutes')).toBe(0);
    expect(spanMinutes('999999_minutes')).toBe(999999);
    expect(spanMinutes('007_days')).toBe(10080);
  });

  it.each(['2 hours', '2_Hours', '2_hrs', '1234567_minutes', '_hours', '-1_hours', '1.5_hours', '', ' 2_hours', '2_hours\n', '2_hours_'])(
    'refuses %j',
    (text) => {
      expect(() => spanMinutes(text)).toThrow(RangeError);
    },
  );

  it('refuses what is not a string', () => {
    expect(() => spanMinutes(120 as unknown as string)).toThrow(RangeError);
  });
});
