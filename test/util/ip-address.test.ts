import { BlockList } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyAddress, parseIPv6 } from '../../src/util/ip-address.js'

describe('classifyAddress', () => {
  it('names the range of each kind of address WebFetch refuses', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.1', 'shared (CGNAT)'],
      ['100.127.255.255', 'shared (CGNAT)'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['fe80::1%eth0', 'link-local'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456::1', 'unique-local'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['64:ff9b::a00:1', 'private'],
      ['2002:7f00:1::', 'loopback'],
      ['::127.0.0.1', 'loopback'],
    ]
    for (const [address, kind] of cases) expect([address, classifyAddress(address)]).toEqual([address, kind])
  })

  it('lets public addresses through, and says when text is no address at all', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ])
      expect([address, classifyAddress(address)]).toEqual([address, 'public'])
    for (const text of ['localhost', '0x7f.1', '127.1', '1.2.3', '01.2.3.4', '256.1.1.1', '1::2::3', ':::', 'g::1'])
      expect([text, classifyAddress(text)]).toEqual([text, 'not an IP address'])
  })

  // An oracle of its own: node's BlockList over the same ranges, written as subnets.
  const v4Refused = new BlockList()
  for (const [net, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 3],
  ] as const)
    v4Refused.addSubnet(net, prefix, 'ipv4')
  const quad = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'))
  // Bias toward the interesting first octets, so every range is hit often.
  const nearRanges = fc
    .tuple(fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 224, 240, 255), fc.nat(255), fc.nat(255), fc.nat(255))
    .map((p) => p.join('.'))

  it('refuses an IPv4 address exactly when it lies in a refused range, in every IPv6 form that carries it', () => {
    fc.assert(
      fc.property(fc.oneof(quad, nearRanges), (address) => {
        const kind = classifyAddress(address)
        expect(kind !== 'public').toBe(v4Refused.check(address, 'ipv4'))
        const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number]
        const hex = (x: number, y: number): string => ((x << 8) | y).toString(16)
        for (const form of [`::ffff:${address}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `64:ff9b::${address}`])
          expect([form, classifyAddress(form)]).toEqual([form, kind])
      }),
      { numRuns: 500 },
    )
  })

  it('reads an IPv6 address the same written in full or compressed', () => {
    const v6Refused = new BlockList()
    v6Refused.addSubnet('fc00::', 7, 'ipv6')
    v6Refused.addSubnet('fe80::', 10, 'ipv6')
    v6Refused.addSubnet('ff00::', 8, 'ipv6')
    const group = fc.oneof(fc.constant(0), fc.nat(0xffff))
    const first = fc.oneof(fc.constantFrom(0xfc00, 0xfd01, 0xfe80, 0xfebf, 0xff02, 0x2606, 0x2a00), fc.nat(0xffff))
    fc.assert(
      fc.property(first, fc.array(group, { minLength: 7, maxLength: 7 }), (head, rest) => {
        const groups = [head, ...rest]
        const full = groups.map((g) => g.toString(16)).join(':')
        const compressed = new URL(`http://[${full}]/`).hostname
        expect(parseIPv6(full)).toEqual(groups)
        expect(parseIPv6(compressed)).toEqual(groups)
        expect(classifyAddress(compressed)).toBe(classifyAddress(full))
        if (head >= 0x2000 && head < 0x4000 && head !== 0x2002 && !(head === 0x2001 && rest[0] === 0xdb8))
          expect(classifyAddress(full)).toBe('public')
        if (v6Refused.check(full, 'ipv6')) expect(classifyAddress(full)).not.toBe('public')
      }),
      { numRuns: 500 },
    )
  })
})
