/**
 * Who the client is, behind proxies we trust (`COFFER_TRUSTED_PROXIES`). The socket's peer is the client unless
 * the peer is a trusted proxy; then `X-Forwarded-For` is read from the right, each trusted address being one more
 * proxy, and the first address that is not trusted is the client. `X-Forwarded-Proto` from a trusted peer says
 * whether the client spoke https. A peer that is not trusted cannot write either header: anyone can send them.
 */
import * as Result from "effect/Result"
import { contains, parseAddress, parseRange, type Range } from "./ipRange.js"

/** The proxies whose forwarding headers are believed: ranges of addresses, none by default. */
export interface TrustedProxies {
  readonly ranges: ReadonlyArray<Range>
}

export const NO_TRUSTED_PROXIES: TrustedProxies = { ranges: [] }

/** Addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`), or the first entry that is none. */
export const trustedProxies = (entries: ReadonlyArray<string>): Result.Result<TrustedProxies, string> => {
  const ranges: Array<Range> = []
  for (const entry of entries) {
    const range = parseRange(entry)
    if (range === undefined) return Result.fail(entry)
    ranges.push(range)
  }
  return Result.succeed({ ranges })
}

export const isTrusted = (proxies: TrustedProxies, address: string): boolean => {
  if (proxies.ranges.length === 0) return false
  const parsed = parseAddress(address)
  return parsed !== undefined && proxies.ranges.some((range) => contains(range, parsed))
}

/** What the request says of its client once proxies are accounted for. */
export interface Client {
  /** The client's address; undefined when the server does not know the peer. */
  readonly address: string | undefined
  /** Whether the client reached us over https (a trusted proxy's `X-Forwarded-Proto`, or the request's URL). */
  readonly https: boolean
}

export interface ForwardingHeaders {
  /** Every `X-Forwarded-For` line, joined by commas (as `Headers#get` gives them). */
  readonly forwardedFor: string | undefined
  readonly forwardedProto: string | undefined
}

/** `1.2.3.4:5678` and `[::1]:5678` as some proxies write them; an address alone is left as it is. */
const withoutPort = (entry: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)
  if (bracketed !== null) return bracketed[1]!
  const ipv4WithPort = /^([\d.]+):\d+$/.exec(entry)
  return ipv4WithPort === null ? entry : ipv4WithPort[1]!
}

/**
 * The header rule. From a trusted peer, `X-Forwarded-For` is walked from its right end: trusted entries are
 * proxies and are passed over, the first untrusted one is the client. An entry that is not an address ends the
 * walk at the proxy that reported it (a client cannot choose what lands in the audit log); a list of only
 * proxies names its leftmost. `X-Forwarded-Proto`'s last value is the one the nearest proxy vouches for.
 */
export const resolveClient = (
  proxies: TrustedProxies,
  peer: string | undefined,
  headers: ForwardingHeaders,
  requestHttps: boolean,
): Client => {
  if (peer === undefined || !isTrusted(proxies, peer)) return { address: peer, https: requestHttps }
  const proto = headers.forwardedProto?.split(",").at(-1)?.trim().toLowerCase()
  const https = proto === undefined || proto === "" ? requestHttps : proto === "https"
  const entries = (headers.forwardedFor ?? "")
    .split(",")
    .map((entry) => withoutPort(entry.trim()))
    .filter((entry) => entry !== "")
  let address = peer
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!
    if (parseAddress(entry) === undefined) break
    address = entry
    if (!isTrusted(proxies, entry)) break
  }
  return { address, https }
}
