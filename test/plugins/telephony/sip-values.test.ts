import { addressList, addressOrBlockProblem, hostProblem } from '../../../plugins/telephony/schemas/sip-values';

describe('SIP values', () => {
  it.each(['pbx.example.com', 'pbx', 'pbx.example.com.', 'sip-1.carrier.example', '192.0.2.10', '2001:db8::10', '::1'])('takes the host %s', (host) => {
    expect(hostProblem(host)).toBeNull();
  });

  it.each([
    ['sip:pbx.example.com', 'scheme'],
    ['sips:pbx.example.com', 'scheme'],
    ['udp://pbx.example.com', 'scheme'],
    ['pbx.example.com/path', 'path'],
    ['pbx.example.com:5060', 'port'],
    ['[2001:db8::10]', 'brackets'],
    ['10.0.0.300', 'hostname or an IP address'],
    ['-pbx.example.com', 'hostname or an IP address'],
    ['pbx..example.com', 'hostname or an IP address'],
    ['pbx example.com', 'hostname or an IP address'],
    [`${'a'.repeat(64)}.example.com`, 'hostname or an IP address'],
  ])('refuses the host %s, saying why', (host, why) => {
    expect(hostProblem(host)).toContain(why);
  });

  it.each(['203.0.113.10', '203.0.113.0/24', '0.0.0.0/0', '2001:db8::/32', '::/0', '2001:db8::1/128'])('takes the address or block %s', (value) => {
    expect(addressOrBlockProblem(value)).toBeNull();
  });

  it.each(['203.0.113.0/33', '2001:db8::/129', '203.0.113.0/', '203.0.113.0/x', '203.0.113.0/24/1', 'example.com', '256.1.1.1', '10.0.0.0/-1'])('refuses the address or block %s', (value) => {
    expect(addressOrBlockProblem(value)).not.toBeNull();
  });

  it('reads a list from a string or an array, without repeats, each problem at its path', () => {
    const errors = {};
    expect(addressList(' 203.0.113.10,198.51.100.0/24\n203.0.113.10 ', 'allowed', errors)).toEqual(['203.0.113.10', '198.51.100.0/24']);
    expect(addressList(['10.0.0.1', '10.0.0.1'], 'allowed', errors)).toEqual(['10.0.0.1']);
    expect(errors).toEqual({});
    const bad: Record<string, string[]> = {};
    addressList(['10.0.0.1', 'nope'], 'allowed', bad);
    addressList('10.0.0.1 nope', 'other', bad);
    expect(Object.keys(bad)).toEqual(['allowed.1', 'other']);
    expect(bad.other[0]).toContain('"nope"');
  });
});
