import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { NO_TRUSTED_PROXIES, resolveClient, type TrustedProxies, trustedProxies } from "./trustedProxies.js"

const proxies = (...entries: Array<string>): TrustedProxies => Result.getOrThrow(trustedProxies(entries))

const PROXIES = proxies("10.0.0.0/8", "fd00::/8")
const headers = (forwardedFor?: string, forwardedProto?: string) => ({ forwardedFor, forwardedProto })

describe("trustedProxies", () => {
  it("names the first entry that is neither an address nor a range", () => {
    expect(trustedProxies(["10.0.0.1", "10.0.0.0/40", "nonsense"])).toEqual(Result.fail("10.0.0.0/40"))
  })
})

describe("resolveClient", () => {
  it("ignores forwarding headers from a peer that is not trusted", () => {
    expect(resolveClient(PROXIES, "203.0.113.5", headers("198.51.100.1", "https"), false)).toEqual({
      address: "203.0.113.5",
      https: false,
    })
  })

  it("ignores forwarding headers when no proxy is trusted (the default)", () => {
    expect(resolveClient(NO_TRUSTED_PROXIES, "10.0.0.2", headers("198.51.100.1", "https"), false)).toEqual({
      address: "10.0.0.2",
      https: false,
    })
  })

  it("takes the rightmost address that is not a trusted proxy", () => {
    // A client may have written the leftmost entry itself; only what our proxies appended is believed.
    const forwarded = "1.1.1.1, 198.51.100.1, 10.0.0.3"
    expect(resolveClient(PROXIES, "10.0.0.2", headers(forwarded), false).address).toBe("198.51.100.1")
  })

  it("matches an IPv4 peer reported in its IPv6-mapped form", () => {
    expect(resolveClient(PROXIES, "::ffff:10.0.0.2", headers("198.51.100.1"), false).address).toBe("198.51.100.1")
  })

  it("reads IPv6 entries, bracketed or not, and strips ports", () => {
    expect(resolveClient(PROXIES, "fd00::2", headers("[2001:db8::7]:4711"), false).address).toBe("2001:db8::7")
    expect(resolveClient(PROXIES, "fd00::2", headers("2001:db8::7"), false).address).toBe("2001:db8::7")
    expect(resolveClient(PROXIES, "10.0.0.2", headers("198.51.100.1:5000"), false).address).toBe("198.51.100.1")
  })

  it("reads several X-Forwarded-For lines as one list", () => {
    expect(resolveClient(PROXIES, "10.0.0.2", headers("198.51.100.1, 203.0.113.9,10.0.0.9"), false).address).toBe(
      "203.0.113.9",
    )
  })

  it("keeps the peer when the header is absent or empty", () => {
    expect(resolveClient(PROXIES, "10.0.0.2", headers(), false).address).toBe("10.0.0.2")
    expect(resolveClient(PROXIES, "10.0.0.2", headers(" , "), false).address).toBe("10.0.0.2")
  })

  it("names the leftmost entry when every entry is a trusted proxy", () => {
    expect(resolveClient(PROXIES, "10.0.0.2", headers("10.0.0.7, 10.0.0.8"), false).address).toBe("10.0.0.7")
  })

  it("stops at the proxy that reported an entry that is not an address", () => {
    expect(resolveClient(PROXIES, "10.0.0.2", headers("<script>, 10.0.0.8"), false).address).toBe("10.0.0.8")
    expect(resolveClient(PROXIES, "10.0.0.2", headers("unknown"), false).address).toBe("10.0.0.2")
  })

  it("believes X-Forwarded-Proto only from a trusted peer, its last value", () => {
    expect(resolveClient(PROXIES, "10.0.0.2", headers(undefined, "https"), false).https).toBe(true)
    expect(resolveClient(PROXIES, "10.0.0.2", headers(undefined, "HTTPS"), false).https).toBe(true)
    expect(resolveClient(PROXIES, "10.0.0.2", headers(undefined, "https, http"), false).https).toBe(false)
    expect(resolveClient(PROXIES, "10.0.0.2", headers(undefined, "http"), true).https).toBe(false)
    expect(resolveClient(PROXIES, "10.0.0.2", headers(), true).https).toBe(true)
    expect(resolveClient(PROXIES, "192.0.2.1", headers(undefined, "https"), false).https).toBe(false)
  })

  it("knows no client when the server does not know the peer", () => {
    expect(resolveClient(PROXIES, undefined, headers("198.51.100.1", "https"), false)).toEqual({
      address: undefined,
      https: false,
    })
  })
})
