/**
 * Base64url decoding against the Web platform's own `atob` (what the kernel used before its one-pass decoder),
 * for every text, valid or not, and the canonical form against a round trip through `toBase64Url`.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fromBase64Url, fromCanonicalBase64Url, toBase64Url } from "./encoding.js"

/** The decoder the kernel had: `atob` after mapping the URL alphabet back, lenient in the unused bits. */
const byAtob = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4)
  try {
    return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0))
  } catch {
    return undefined
  }
}

const base64urlText = fc.string({ unit: fc.constantFrom(..."AZaz09-_+/=. é\u0100".split("")), maxLength: 40 })

describe("fromBase64Url", () => {
  it("decodes every text as atob does, and refuses what atob refuses", () => {
    fc.assert(
      fc.property(fc.oneof(base64urlText, fc.string({ maxLength: 12 })), (text) => {
        expect(fromBase64Url(text)).toEqual(byAtob(text))
      }),
      { numRuns: 5_000 },
    )
  })

  it("writes what the platform's btoa writes, in the URL alphabet and without padding, short or long", () => {
    const byBtoa = (bytes: Uint8Array) => {
      let binary = ""
      for (const byte of bytes) binary += String.fromCharCode(byte)
      return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
    }
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 60 }), fc.uint8Array({ maxLength: 3_000 })), (bytes) => {
        expect(toBase64Url(bytes)).toBe(byBtoa(bytes))
      }),
      { numRuns: 2_000 },
    )
    const all = Uint8Array.from({ length: 256 }, (_, i) => i)
    expect(toBase64Url(all)).toBe(byBtoa(all))
    expect(toBase64Url(new Uint8Array(0))).toBe("")
  })

  it("gives back any bytes that toBase64Url wrote", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes)
        expect(fromCanonicalBase64Url(toBase64Url(bytes))).toEqual(bytes)
      }),
    )
  })
})

describe("fromCanonicalBase64Url", () => {
  it("accepts exactly the texts that toBase64Url writes", () => {
    fc.assert(
      fc.property(base64urlText, (text) => {
        const lenient = byAtob(text)
        const canonical = lenient !== undefined && toBase64Url(lenient) === text ? lenient : undefined
        expect(fromCanonicalBase64Url(text)).toEqual(canonical)
      }),
      { numRuns: 5_000 },
    )
  })

  it("refuses non-zero unused bits, padding and a length that leaves one character over", () => {
    expect(fromCanonicalBase64Url("AA")).toEqual(new Uint8Array([0]))
    expect(fromCanonicalBase64Url("AB")).toBeUndefined()
    expect(fromBase64Url("AB")).toEqual(new Uint8Array([0]))
    expect(fromCanonicalBase64Url("AA==")).toBeUndefined()
    expect(fromCanonicalBase64Url("AAAAA")).toBeUndefined()
  })
})
