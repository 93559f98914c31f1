/**
 * The `returnTo` of a sign-in start, which the callback redirects to (seed 001 §4). It is accepted only as a
 * path on this site: it must start with one `/`, and neither it nor its percent-decoded forms may start with
 * `//` or contain a backslash or a control character (browsers read `\` as `/` and drop tabs and newlines).
 * Anything else is refused with 400 rather than silently replaced, so a crafted link fails visibly. Absent
 * means `/`.
 */

/** Longer than any honest `returnTo`; longer input is refused before any work. */
const MAX_RETURN_TO_LENGTH = 2048

// Controls, DEL, and the C1 range, any of which a browser may drop or a log may misprint.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

const pathIsLocal = (value: string) =>
  value.startsWith("/") && !value.startsWith("//") && !value.includes("\\") && !CONTROL.test(value)

/**
 * `raw` when it is a path on this site, else `undefined`; absent or empty means `/`. Each percent-decoded form
 * must pass too, since a later hop (a proxy, the web app's router) may decode once more before redirecting.
 */
export const safeReturnTo = (raw: string | undefined): string | undefined => {
  if (raw === undefined || raw === "") return "/"
  if (raw.length > MAX_RETURN_TO_LENGTH) return undefined
  let form = raw
  for (let round = 0; ; round++) {
    if (!pathIsLocal(form)) return undefined
    let decoded: string
    try {
      decoded = decodeURIComponent(form)
    } catch {
      return undefined
    }
    if (decoded === form) break
    // Encoded over and over: no path of this site is, so nothing is lost by refusing.
    if (round === 3) return undefined
    form = decoded
  }
  // Last guard: resolved against any origin, it must stay there.
  const base = "http://coffer.invalid"
  return new URL(raw, base).origin === base ? raw : undefined
}
