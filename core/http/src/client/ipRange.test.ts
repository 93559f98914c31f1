import { describe, expect, it } from "vitest"
import { contains, parseAddress, parseRange } from "./ipRange.js"

const inRange = (range: string, address: string) => {
  const parsedRange = parseRange(range)
  const parsedAddress = parseAddress(address)
  if (parsedRange === undefined || parsedAddress === undefined) throw new Error(`unparsed: ${range} ${address}`)
  return contains(parsedRange, parsedAddress)
}

describe("parseAddress", () => {
  it.each([
    ["192.0.2.7", 4, 0xc0000207n],
    ["0.0.0.0", 4, 0n],
    ["255.255.255.255", 4, 0xffffffffn],
    ["::", 6, 0n],
    ["::1", 6, 1n],
    ["2001:db8::", 6, 0x20010db8n << 96n],
    ["2001:DB8:0:0:0:0:0:1", 6, (0x20010db8n << 96n) | 1n],
    ["1:2:3:4:5:6:7::", 6, 0x00010002000300040005000600070000n],
    ["::1.2.3.4", 6, 0x01020304n],
    ["[::1]", 6, 1n],
    ["fe80::1%eth0", 6, (0xfe80n << 112n) | 1n],
    // What a dual-stack socket reports for an IPv4 peer is that IPv4 address.
    ["::ffff:10.0.0.1", 4, 0x0a000001n],
    ["::ffff:a00:1", 4, 0x0a000001n],
  ])("%s", (text, family, bits) => {
    expect(parseAddress(text)).toEqual({ family, bits })
  })

  it.each([
    "",
    "1.2.3",
    "1.2.3.4.5",
    "256.0.0.1",
    "01.2.3.4",
    "1.2.3.4:80",
    "a.b.c.d",
    ":::",
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8::",
    "12345::",
    ":1",
    "1:",
    "::1.2.3",
    "::g",
    "localhost",
    "10.0.0.0/8",
  ])("refuses %o", (text) => {
    expect(parseAddress(text)).toBeUndefined()
  })
})

describe("parseRange and contains", () => {
  it.each([
    ["10.0.0.0/8", "10.255.1.2", true],
    ["10.0.0.0/8", "11.0.0.1", false],
    ["192.0.2.7", "192.0.2.7", true],
    ["192.0.2.7", "192.0.2.8", false],
    ["192.0.2.0/31", "192.0.2.1", true],
    ["192.0.2.0/31", "192.0.2.2", false],
    ["0.0.0.0/0", "203.0.113.9", true],
    // Host bits after the prefix are cleared.
    ["10.1.2.3/8", "10.9.9.9", true],
    ["fd00::/8", "fd12:3456::1", true],
    ["fd00::/8", "fe80::1", false],
    ["::1", "::1", true],
    ["::/0", "2001:db8::1", true],
    ["2001:db8::/127", "2001:db8::1", true],
    ["2001:db8::/127", "2001:db8::2", false],
    // IPv4 and its mapped IPv6 spelling are one address, whichever side writes which.
    ["127.0.0.1", "::ffff:127.0.0.1", true],
    ["::ffff:10.0.0.0/104", "10.1.2.3", true],
    ["::ffff:10.0.0.0/104", "11.1.2.3", false],
    // The families never match each other otherwise.
    ["::/0", "10.0.0.1", false],
    ["0.0.0.0/0", "::1", false],
  ])("%s contains %s: %s", (range, address, expected) => {
    expect(inRange(range, address)).toBe(expected)
  })

  it.each([
    "10.0.0.0/33",
    "::/129",
    "10.0.0.0/",
    "10.0.0.0/08",
    "10.0.0.0/-1",
    "10.0.0.0/8/8",
    "10.0.0/8",
    "::ffff:10.0.0.0/95",
    "example.com",
    "*",
  ])("refuses %o", (text) => {
    expect(parseRange(text)).toBeUndefined()
  })
})
