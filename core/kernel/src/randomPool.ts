/**
 * Random bytes from the platform's CSPRNG, drawn a page at a time. Each `getRandomValues` call costs about 7 µs
 * however few bytes it fills (a system call and the Web Crypto checks), and a secret write draws three times (the
 * version's id, the audit record's id, the nonce), an audited read once (issue 10). Served from a page, a draw costs
 * a copy. Every byte is served once, and zeroed in the page as it is served, so the page never holds randomness
 * already handed out; what it holds is what the platform would have returned next, as Node's own `randomUUID`
 * cache does.
 */

/** Bytes drawn from the platform at once. */
const PAGE_BYTES = 4096

const page = new Uint8Array(PAGE_BYTES)
let served = PAGE_BYTES

/** `length` cryptographically secure random bytes, in a fresh array the caller owns. */
export const randomBytes = (length: number): Uint8Array => {
  if (length > PAGE_BYTES / 4) return globalThis.crypto.getRandomValues(new Uint8Array(length))
  if (served + length > PAGE_BYTES) {
    globalThis.crypto.getRandomValues(page)
    served = 0
  }
  const bytes = page.slice(served, served + length)
  page.fill(0, served, served + length)
  served += length
  return bytes
}
