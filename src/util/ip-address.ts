/**
 * Which IP addresses a web fetch may reach by default: public unicast only
 * (docs/decisions/tools.md #130). Pure parsing and classification, no I/O: the adapter that
 * resolves a host name asks this about every address it gets.
 */

/** Why an address is not public (the range it lies in), or 'public'. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'reserved'
  | 'not an IP address'

type V4Range = readonly [first: number, prefix: number, kind: Exclude<AddressClass, 'public'>]

const V4_RANGES: readonly V4Range[] = [
  [v4(0, 0, 0, 0), 8, 'unspecified'], // "this network"; 0.0.0.0 reaches the local host
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'shared (CGNAT)'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'], // cloud metadata services live here
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking networks
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'], // includes the broadcast address
]

function v4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0
}

/** Classifies an IPv4 address given as its 32-bit value. */
export function classifyIPv4(value: number): AddressClass {
  for (const [first, prefix, kind] of V4_RANGES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0
    if ((value & mask) >>> 0 === first) return kind
  }
  return 'public'
}

/** Strict dotted-quad IPv4 (four decimal parts 0–255, no leading zeros), or undefined. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    value = value * 256 + n
  }
  return value
}

/** IPv6 (with `::`, an optional trailing dotted quad and an optional `%zone`) as 8 groups, or undefined. */
export function parseIPv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const halves = bare.split('::')
  if (halves.length > 2) return undefined
  const groups = (half: string): number[] | undefined => {
    if (half === '') return []
    const out: number[] = []
    const parts = half.split(':')
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes('.')) {
        const quad = parseIPv4(part)
        if (quad === undefined) return undefined
        out.push(quad >>> 16, quad & 0xffff)
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) out.push(parseInt(part, 16))
      else return undefined
    }
    return out
  }
  const head = groups(halves[0] as string)
  const tail = halves.length === 2 ? groups(halves[1] as string) : []
  if (head === undefined || tail === undefined) return undefined
  if (halves.length === 1) return head.length === 8 ? head : undefined
  const fill = 8 - head.length - tail.length
  // `::` stands for at least one group of zeros.
  return fill < 1 ? undefined : [...head, ...new Array<number>(fill).fill(0), ...tail]
}

/** Classifies IPv6 groups; an IPv4 address carried inside one (mapped, NAT64, 6to4) is classified as IPv4. */
export function classifyIPv6(g: readonly number[]): AddressClass {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h7 = 0, h8 = 0] = g
  const embedded = ((h7 << 16) | h8) >>> 0
  const zeroTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0)
  if (zeroTo(8)) return 'unspecified'
  if (zeroTo(7) && h8 === 1) return 'loopback'
  if (zeroTo(5) && f === 0xffff) return classifyIPv4(embedded) // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeroTo(4) && e === 0xffff && f === 0) return classifyIPv4(embedded) // ::ffff:0:a.b.c.d (translated)
  if (zeroTo(6)) return classifyIPv4(embedded) // ::a.b.c.d (IPv4-compatible, deprecated)
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return classifyIPv4(embedded) // NAT64
  if (a === 0x2002) return classifyIPv4(((b << 16) | c) >>> 0) // 6to4
  if ((a & 0xfe00) === 0xfc00) return 'unique-local'
  if ((a & 0xffc0) === 0xfe80) return 'link-local'
  if ((a & 0xffc0) === 0xfec0) return 'private' // site-local, deprecated
  if ((a & 0xff00) === 0xff00) return 'multicast'
  if (a === 0x0100 && b === 0 && c === 0 && d === 0) return 'reserved' // discard-only
  if (a === 0x2001 && b === 0x0db8) return 'reserved' // documentation
  return 'public'
}

/** Classifies an address written as text (IPv4 dotted quad or IPv6, brackets allowed). */
export function classifyAddress(text: string): AddressClass {
  const quad = parseIPv4(text)
  if (quad !== undefined) return classifyIPv4(quad)
  const groups = text.includes(':') ? parseIPv6(text) : undefined
  return groups === undefined ? 'not an IP address' : classifyIPv6(groups)
}
