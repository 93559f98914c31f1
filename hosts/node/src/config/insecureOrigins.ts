/**
 * Plain http where others can reach it (issue 15): in production, a public origin that is not https on a bind
 * address other machines reach would carry session cookies and secrets unencrypted.
 */
import { contains, parseAddress, parseRange } from "@coffer/http"
import type { Reader } from "./checks.js"

const LOOPBACK = [parseRange("127.0.0.0/8")!, parseRange("::1")!]

/** Whether only this machine can reach the bind address. */
export const isLoopback = (bindAddress: string) => {
  const address = parseAddress(bindAddress)
  return bindAddress === "localhost" || (address !== undefined && LOOPBACK.some((range) => contains(range, address)))
}

/**
 * In production, a plain-http public origin on an address other machines reach would send session cookies and
 * secrets unencrypted (and without `Secure`); it takes `COFFER_ALLOW_INSECURE_HTTP=1` to say that is meant.
 */
export const refuseInsecureOrigins = (
  reader: Reader,
  bindAddress: string,
  origins: Readonly<Record<string, string | undefined>>,
) => {
  if (isLoopback(bindAddress)) return
  for (const [name, value] of Object.entries(origins)) {
    if (value?.startsWith("http://")) {
      reader.report(
        name,
        `${value} is not https, and COFFER_HOST=${bindAddress} is reachable from other machines: sessions and secrets would travel unencrypted; use an https origin (TLS at a proxy) or set COFFER_ALLOW_INSECURE_HTTP=1`,
      )
    }
  }
}
