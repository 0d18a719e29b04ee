import { createAddressPolicy, parseCidr } from '../../../core/egress';

const reasonOf = (policy: ReturnType<typeof createAddressPolicy>, ip: string) => {
  const verdict = policy.check(ip);
  return verdict.allowed ? 'allowed' : verdict.reason;
};

describe('address policy: the default', () => {
  const policy = createAddressPolicy();

  it.each([
    ['0.0.0.0', /this network/],
    ['0.1.2.3', /this network/],
    ['10.0.0.1', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.254', /carrier-grade NAT/],
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /metadata/],
    ['169.254.1.1', /link-local/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.0.0.192', /IETF protocol/],
    ['192.168.1.1', /private/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.255', /benchmarking/],
    ['224.0.0.1', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::7f00:1', /IPv4-compatible/],
    ['fc00::1', /unique-local/],
    ['fd00::1', /unique-local/],
    ['fd00:ec2::254', /unique-local/],
    ['fe80::1', /link-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:169.254.169.254', /metadata/],
    ['64:ff9b::7f00:1', /NAT64 address of 127\.0\.0\.1.*loopback/],
    ['64:ff9b::a00:1', /NAT64 address of 10\.0\.0\.1.*private/],
    ['2002:7f00:1::', /6to4 address of 127\.0\.0\.1.*loopback/],
    ['2002:a9fe:a9fe::1', /6to4 address of 169\.254\.169\.254.*metadata/],
    ['2001:0:4136:e378::1', /Teredo/],
  ])('refuses %s', (ip, reason) => {
    expect(reasonOf(policy, ip)).toMatch(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    'allows the public address %s',
    (ip) => {
      expect(reasonOf(policy, ip)).toBe('allowed');
    },
  );

  it('refuses anything that is not a literal address', () => {
    expect(reasonOf(policy, 'localhost')).toMatch(/not an IP address/);
    expect(reasonOf(policy, '2130706433')).toMatch(/not an IP address/);
    expect(reasonOf(policy, '0177.0.0.1')).toMatch(/not an IP address/);
  });
});

describe('address policy: allowed CIDRs', () => {
  it('an IPv4 CIDR lets exactly its range through', () => {
    const policy = createAddressPolicy(['10.20.0.0/16']);
    expect(reasonOf(policy, '10.20.0.0')).toBe('allowed');
    expect(reasonOf(policy, '10.20.255.255')).toBe('allowed');
    expect(reasonOf(policy, '::ffff:10.20.1.2')).toBe('allowed');
    expect(reasonOf(policy, '10.19.255.255')).toMatch(/private/);
    expect(reasonOf(policy, '10.21.0.0')).toMatch(/private/);
    expect(reasonOf(policy, '127.0.0.1')).toMatch(/loopback/);
  });

  it('an IPv6 CIDR lets exactly its range through', () => {
    const policy = createAddressPolicy(['fd00:1234::/32']);
    expect(reasonOf(policy, 'fd00:1234::1')).toBe('allowed');
    expect(reasonOf(policy, 'fd00:1234:ffff:ffff:ffff:ffff:ffff:ffff')).toBe('allowed');
    expect(reasonOf(policy, 'fd00:1235::1')).toMatch(/unique-local/);
    expect(reasonOf(policy, 'fd00:1233:ffff::1')).toMatch(/unique-local/);
  });

  it('a bare address allows that host only', () => {
    const policy = createAddressPolicy(['127.0.0.2', '::1']);
    expect(reasonOf(policy, '127.0.0.2')).toBe('allowed');
    expect(reasonOf(policy, '::1')).toBe('allowed');
    expect(reasonOf(policy, '127.0.0.1')).toMatch(/loopback/);
    expect(reasonOf(policy, '127.0.0.3')).toMatch(/loopback/);
  });

  it('allowing loopback v4 allows its IPv4-mapped form, not IPv6 loopback', () => {
    const policy = createAddressPolicy(['127.0.0.0/8']);
    expect(reasonOf(policy, '::ffff:127.0.0.1')).toBe('allowed');
    expect(reasonOf(policy, '::1')).toMatch(/loopback/);
  });

  it('an allowance written in IPv4-mapped form applies to the IPv4 addresses', () => {
    const policy = createAddressPolicy(['::ffff:10.0.0.0/112']);
    expect(reasonOf(policy, '10.0.5.5')).toBe('allowed');
    expect(reasonOf(policy, '::ffff:10.0.255.255')).toBe('allowed');
    expect(reasonOf(policy, '10.1.0.1')).toMatch(/private/);
  });

  it('NAT64 and 6to4 addresses pass when their embedded IPv4 is allowed', () => {
    const policy = createAddressPolicy(['10.0.0.0/8']);
    expect(reasonOf(policy, '64:ff9b::a00:1')).toBe('allowed');
    expect(reasonOf(policy, '2002:a00:1::1')).toBe('allowed');
    expect(reasonOf(policy, '64:ff9b::7f00:1')).toMatch(/loopback/);
  });

  it('blank entries are ignored (an empty EGRESS_ALLOW_CIDRS)', () => {
    expect(reasonOf(createAddressPolicy(['', ' ']), '10.0.0.1')).toMatch(/private/);
  });
});

describe('parseCidr', () => {
  it.each(['banana', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8x', '0177.0.0.1/8', '127.1/8', 'fd00::/129', '10.0.0.0/-1'])('refuses %j', (text) => {
    expect(() => parseCidr(text)).toThrow(/CIDR|prefix/);
  });

  it('reads IPv4, IPv6 and bare addresses', () => {
    expect(parseCidr(' 10.0.0.0/8 ').map(String)).toEqual(['10.0.0.0', '8']);
    expect(parseCidr('fd00::/8').map(String)).toEqual(['fd00::', '8']);
    expect(parseCidr('192.168.1.5').map(String)).toEqual(['192.168.1.5', '32']);
    expect(parseCidr('2001:db8::1').map(String)).toEqual(['2001:db8::1', '128']);
  });
});
