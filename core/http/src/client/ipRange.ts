/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, as the trusted-proxy rule needs them: parse strictly, test
 * membership. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, what a dual-stack socket reports for an IPv4 peer)
 * is the IPv4 address it maps, so one range matches both spellings. Web-standard code (no `node:net`): the apps
 * run on any fetch-based server.
 */

/** An address as a number of 32 (IPv4) or 128 (IPv6) bits. */
export interface Address {
  readonly family: 4 | 6
  readonly bits: bigint
}

/** The addresses sharing the first `prefix` bits of `base` (host bits are cleared). */
export interface Range {
  readonly family: 4 | 6
  readonly base: bigint
  readonly prefix: number
}

const WIDTH = { 4: 32, 6: 128 } as const
const MAPPED_PREFIX = 0xffffn

// No leading zeros: `010` reads as octal to some parsers and as decimal to others.
const IPV4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/
const HEX_GROUP = /^[0-9a-f]{1,4}$/i

const parseIpv4 = (text: string): bigint | undefined => {
  const match = IPV4.exec(text)
  if (match === null) return undefined
  let bits = 0n
  for (const octet of match.slice(1)) {
    const value = Number(octet)
    if (value > 255) return undefined
    bits = (bits << 8n) | BigInt(value)
  }
  return bits
}

const parseGroups = (text: string): Array<string> | undefined => {
  if (text === "") return []
  const groups = text.split(":")
  return groups.every((group) => HEX_GROUP.test(group)) ? groups : undefined
}

const parseIpv6 = (text: string): bigint | undefined => {
  let hex = text
  // A trailing dotted quad stands for the last two groups.
  const lastColon = hex.lastIndexOf(":")
  const tail = hex.slice(lastColon + 1)
  if (tail.includes(".")) {
    const ipv4 = parseIpv4(tail)
    if (ipv4 === undefined) return undefined
    hex = `${hex.slice(0, lastColon + 1)}${(ipv4 >> 16n).toString(16)}:${(ipv4 & 0xffffn).toString(16)}`
  }
  const halves = hex.split("::")
  if (halves.length > 2) return undefined
  const head = parseGroups(halves[0]!)
  const rest = halves.length === 2 ? parseGroups(halves[1]!) : []
  if (head === undefined || rest === undefined) return undefined
  const missing = 8 - head.length - rest.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  let bits = 0n
  for (const group of [...head, ...Array<string>(missing).fill("0"), ...rest]) {
    bits = (bits << 16n) | BigInt(Number.parseInt(group, 16))
  }
  return bits
}

/**
 * The address `text` spells, or undefined. Accepts `[…]` around an IPv6 address and ignores an IPv6 zone
 * (`fe80::1%eth0`); an IPv4-mapped IPv6 address comes back as IPv4.
 */
export const parseAddress = (text: string): Address | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  if (!bare.includes(":")) {
    const bits = parseIpv4(bare)
    return bits === undefined ? undefined : { family: 4, bits }
  }
  const zone = bare.indexOf("%")
  const bits = parseIpv6(zone === -1 ? bare : bare.slice(0, zone))
  if (bits === undefined) return undefined
  return bits >> 32n === MAPPED_PREFIX ? { family: 4, bits: bits & 0xffffffffn } : { family: 6, bits }
}

const mask = (family: 4 | 6, prefix: number) => {
  const width = BigInt(WIDTH[family])
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n)
}

/**
 * `address` or `address/prefix` as a range, or undefined. A bare address is a range of one; host bits after the
 * prefix are cleared (`10.1.2.3/8` is `10.0.0.0/8`); an IPv4-mapped range of at least 96 bits is its IPv4 range.
 */
export const parseRange = (text: string): Range | undefined => {
  const slash = text.indexOf("/")
  const address = parseAddress(slash === -1 ? text : text.slice(0, slash))
  if (address === undefined) return undefined
  const written = slash === -1 ? undefined : text.slice(slash + 1)
  if (written !== undefined && !/^(0|[1-9]\d{0,2})$/.test(written)) return undefined
  const mapped = address.family === 4 && text.includes(":")
  let prefix = written === undefined ? WIDTH[address.family] : Number(written)
  if (mapped) {
    if (prefix < 96 || prefix > 128) return undefined
    prefix -= 96
  }
  if (prefix > WIDTH[address.family]) return undefined
  return { family: address.family, base: address.bits & mask(address.family, prefix), prefix }
}

/**
 * Who counts as one client where attempts are counted: an IPv4 address, or the /64 an IPv6 address is in (the
 * block one subscriber or host is given, inside which a new address costs nothing: counted apart, its addresses
 * would each get their own allowance and fill the cache with counters). Text that is no address stays as it is.
 */
export const countedClient = (text: string): string => {
  const address = parseAddress(text)
  if (address === undefined) return text
  if (address.family === 4) return text.includes(":") ? ipv4Text(address.bits) : text
  const network = address.bits >> 64n
  const groups = [48n, 32n, 16n, 0n].map((shift) => ((network >> shift) & 0xffffn).toString(16))
  return `${groups.join(":")}::/64`
}

const ipv4Text = (bits: bigint) => [24n, 16n, 8n, 0n].map((shift) => String((bits >> shift) & 0xffn)).join(".")

export const contains = (range: Range, address: Address): boolean =>
  range.family === address.family && (address.bits & mask(range.family, range.prefix)) === range.base
