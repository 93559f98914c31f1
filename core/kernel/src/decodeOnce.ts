/**
 * Cached answers come back from the Cache port as text, and a busy credential comes back as the same text on every
 * request: decoding it once per text, and keeping the result, spares a JSON parse and a schema check per request
 * (issue 10). Safe because a text always decodes to the same value; bounded, the oldest text leaving first.
 */
import * as Option from "effect/Option"

/** `decode` remembered for the last `max` texts it accepted; `undefined` for a text it refuses (not remembered). */
export const decodeOnce = <A>(decode: (text: string) => Option.Option<A>, max: number) => {
  const decoded = new Map<string, A>()
  return (text: string): A | undefined => {
    const known = decoded.get(text)
    if (known !== undefined) return known
    const fresh = decode(text)
    if (Option.isNone(fresh)) return undefined
    if (decoded.size >= max) decoded.delete(decoded.keys().next().value!)
    decoded.set(text, fresh.value)
    return fresh.value
  }
}
