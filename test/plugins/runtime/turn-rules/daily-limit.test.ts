import { customerMessagesSinceIn } from '../../../../plugins/runtime/turn-rules';

/** The day's customer messages counted from the history a turn has read, or null when only the database can tell. */
describe('customerMessagesSinceIn', () => {
  const since = new Date('2026-11-27T00:00:00.000Z');
  const message = (sender: string, at: string) => ({ sender, created_at: at });

  it('counts from a history shorter than asked for: it is the whole conversation', () => {
    const history = [message('customer', '2026-11-26T23:59:59.999Z'), message('agent', '2026-11-27T00:00:00.000Z'), message('customer', '2026-11-27T00:00:00.000Z'), message('customer', '2026-11-27T08:00:00.000Z')];
    expect(customerMessagesSinceIn(history, 200, since)).toBe(2);
    expect(customerMessagesSinceIn([], 200, since)).toBe(0);
  });

  it('counts from a full history whose oldest message is older than the day: it holds all of that day', () => {
    const history = [message('customer', '2026-11-26T10:00:00.000Z'), message('customer', '2026-11-27T09:00:00.000Z'), message('agent', '2026-11-27T09:00:01.000Z')];
    expect(customerMessagesSinceIn(history, 3, since)).toBe(1);
  });

  it('cannot tell from a full history that starts within the day: null, for the database to count', () => {
    const history = [message('customer', '2026-11-27T00:00:00.000Z'), message('agent', '2026-11-27T09:00:00.000Z'), message('customer', '2026-11-27T09:01:00.000Z')];
    expect(customerMessagesSinceIn(history, 3, since)).toBeNull();
  });
});
