/**
 * Quoting what a request named inside an error message: as a JSON string, so that odd characters cannot bend the
 * sentence, and cut to its first `QUOTED_MAX` characters, so that a name or version sent a megabyte long is not
 * sent back a megabyte long (the length given says how much was left out).
 */

/** Characters of a quoted value kept in a message. */
export const QUOTED_MAX = 80

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/** `"value"`, or `"its first 80 characters"… (n characters)`. */
export const quote = (value: string): string => {
  if (value.length <= QUOTED_MAX) return JSON.stringify(value)
  // Never between the two halves of a character outside the Basic Multilingual Plane (an emoji).
  const end = isHighSurrogate(value.charCodeAt(QUOTED_MAX - 1)) ? QUOTED_MAX - 1 : QUOTED_MAX
  return `${JSON.stringify(value.slice(0, end))}… (${value.length} characters)`
}
