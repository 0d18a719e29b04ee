import { checkExceptions, checkWeeklyHours } from '../../../../plugins/appointments/slots';

const paths = (problems: Array<{ path: string }>) => problems.map((problem) => problem.path);

describe('checkWeeklyHours', () => {
  it('accepts good hours, touching intervals and 24:00', () => {
    expect(
      checkWeeklyHours({
        mon: [{ start: '09:00', end: '12:00' }, { start: '12:00', end: '17:00' }],
        sat: [{ start: '20:00', end: '24:00' }],
        sun: [],
      }),
    ).toEqual([]);
  });

  it('names the clock that is not HH:MM', () => {
    expect(
      checkWeeklyHours({
        mon: [{ start: '09:00', end: '12:00' }, { start: '13:00', end: '25:00' }],
        tue: [{ start: '9:00', end: '12:00' }, { start: '10:60', end: '11:00' }, { start: '10:00', end: '24:01' }],
      }),
    ).toEqual([
      { path: 'weekly_hours.mon[1].end', message: 'must be HH:MM, 00:00 to 24:00' },
      { path: 'weekly_hours.tue[0].start', message: 'must be HH:MM, 00:00 to 24:00' },
      { path: 'weekly_hours.tue[1].start', message: 'must be HH:MM, 00:00 to 24:00' },
      { path: 'weekly_hours.tue[2].end', message: 'must be HH:MM, 00:00 to 24:00' },
    ]);
  });

  it('wants start before end', () => {
    expect(checkWeeklyHours({ wed: [{ start: '12:00', end: '12:00' }, { start: '24:00', end: '24:00' }, { start: '17:00', end: '09:00' }] })).toEqual([
      { path: 'weekly_hours.wed[0].end', message: 'must be after start (12:00)' },
      { path: 'weekly_hours.wed[1].end', message: 'must be after start (24:00)' },
      { path: 'weekly_hours.wed[2].end', message: 'must be after start (17:00)' },
    ]);
  });

  it('finds overlapping intervals in one day, whatever their order', () => {
    expect(
      checkWeeklyHours({
        thu: [{ start: '13:00', end: '17:00' }, { start: '09:00', end: '12:00' }, { start: '11:30', end: '13:30' }],
        fri: [{ start: '09:00', end: '17:00' }, { start: '10:00', end: '11:00' }],
      }),
    ).toEqual([
      { path: 'weekly_hours.thu[2]', message: 'overlaps weekly_hours.thu[0] (13:00-17:00)' },
      { path: 'weekly_hours.fri[1]', message: 'overlaps weekly_hours.fri[0] (09:00-17:00)' },
    ]);
  });

  it('names unknown days and shapes that are not lists of intervals', () => {
    expect(paths(checkWeeklyHours({ monday: [], tue: 'all day', wed: [null, { start: 9 }] }))).toEqual([
      'weekly_hours.monday',
      'weekly_hours.tue',
      'weekly_hours.wed[0]',
      'weekly_hours.wed[1].start',
      'weekly_hours.wed[1].end',
    ]);
    expect(checkWeeklyHours([])).toEqual([{ path: 'weekly_hours', message: 'must be an object keyed by weekday (mon..sun)' }]);
    expect(paths(checkWeeklyHours(null, 'settings.hours'))).toEqual(['settings.hours']);
  });
});

describe('checkExceptions', () => {
  it('accepts a closed day, special hours, and closed: false with hours', () => {
    expect(
      checkExceptions([
        { date: '2026-12-25', closed: true },
        { date: '2026-12-24', hours: [{ start: '09:00', end: '12:00' }] },
        { date: '2028-02-29', closed: false, hours: [] },
      ]),
    ).toEqual([]);
  });

  it('wants real calendar dates, each once', () => {
    expect(
      checkExceptions([
        { date: '2026-02-29', closed: true },
        { date: '2026-04-31', closed: true },
        { date: '2026-4-01', closed: true },
        { date: '2026-12-25', closed: true },
        { date: '2026-12-25', hours: [{ start: '10:00', end: '11:00' }] },
        { closed: true },
      ]),
    ).toEqual([
      { path: 'exceptions[0].date', message: 'must be a calendar date, YYYY-MM-DD' },
      { path: 'exceptions[1].date', message: 'must be a calendar date, YYYY-MM-DD' },
      { path: 'exceptions[2].date', message: 'must be a calendar date, YYYY-MM-DD' },
      { path: 'exceptions[4].date', message: 'repeats exceptions[3].date' },
      { path: 'exceptions[5].date', message: 'must be a calendar date, YYYY-MM-DD' },
    ]);
  });

  it('wants closed: true or hours, not both', () => {
    expect(
      checkExceptions([
        { date: '2026-12-25', closed: true, hours: [{ start: '09:00', end: '12:00' }] },
        { date: '2026-12-26' },
        { date: '2026-12-27', closed: false },
        { date: '2026-12-28', closed: 'yes' },
      ]),
    ).toEqual([
      { path: 'exceptions[0].hours', message: 'must be left out when closed is true' },
      { path: 'exceptions[1]', message: 'needs closed: true or hours' },
      { path: 'exceptions[2]', message: 'needs closed: true or hours' },
      { path: 'exceptions[3].closed', message: 'must be true or false' },
      { path: 'exceptions[3]', message: 'needs closed: true or hours' },
    ]);
  });

  it('checks the hours of an exception like a weekday', () => {
    expect(
      checkExceptions([{ date: '2026-12-24', hours: [{ start: '09:00', end: '12:00' }, { start: '11:00', end: '10:00' }, { start: '10:00', end: '13:00' }] }]),
    ).toEqual([
      { path: 'exceptions[0].hours[1].end', message: 'must be after start (11:00)' },
      { path: 'exceptions[0].hours[2]', message: 'overlaps exceptions[0].hours[0] (09:00-12:00)' },
    ]);
    expect(paths(checkExceptions([{ date: '2026-12-24', hours: 'morning' }]))).toEqual(['exceptions[0].hours']);
  });

  it('wants a list of objects', () => {
    expect(checkExceptions({})).toEqual([{ path: 'exceptions', message: 'must be a list' }]);
    expect(paths(checkExceptions(['2026-12-25']))).toEqual(['exceptions[0]']);
  });
});
