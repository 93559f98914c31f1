/**
 * The only `returnTo` (sign-in page) and `page` (signed-in-again page) the app follows or links to: a path on this
 * site. It must start with one `/`, hold no backslash (browsers read `\` as `/`) and no control character: the URL
 * parser drops tabs and line breaks anywhere, so `/<TAB>/evil.example` is `//evil.example`, another site. That is
 * the server's rule for the sign-in's `returnTo` (`core/http` `returnTo.ts`). `/api/…` is no page of the app.
 */

// Controls, DEL and the C1 range, as the server's check refuses them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

const BASE = "http://coffer.invalid"

export const localPath = (value: string | null | undefined): string | undefined => {
  if (value === null || value === undefined) return undefined
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\") || CONTROL.test(value)) return undefined
  if (value.startsWith("/api/")) return undefined
  // Last guard: resolved against any origin, it must stay there.
  return new URL(value, BASE).origin === BASE ? value : undefined
}
