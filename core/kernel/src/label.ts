/**
 * Labels: the free-text names people give to things others will read and trust in lists, prompts and the audit
 * log (project names, Secrets API-key names, Schemas token names).
 *
 * A label is trimmed, then must hold 1 to `maxLength` characters (code points) and none of:
 * - control characters (Cc): NUL is refused by Postgres text, and line breaks forge log lines and list rows;
 * - format characters (Cf): bidirectional overrides (U+202E) and isolates reorder what is shown, so
 *   "invoice‮fdp.exe" reads as something it is not, and zero-width characters make two labels look equal;
 * - unpaired surrogates (Cs): they cannot be stored as UTF-8.
 * Everything else, letters of any script and emoji included, is kept exactly as typed.
 */
import * as Result from "effect/Result"

const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}]/u

/**
 * Parses a label named `label` in messages ("Project name"): the trimmed label, or the message saying what is
 * wrong with it. Callers wrap the message in their own 400 error.
 */
export const parseLabel = (label: string, maxLength: number, input: string): Result.Result<string, string> => {
  const trimmed = input.trim()
  if (trimmed.length === 0) return Result.fail(`${label} must not be empty`)
  const length = [...trimmed].length
  if (length > maxLength) return Result.fail(`${label} must be at most ${maxLength} characters, got ${length}`)
  const found = FORBIDDEN.exec(trimmed)?.[0]
  if (found === undefined) return Result.succeed(trimmed)
  // The code point, not the character: an invisible one quoted as itself would show nothing.
  const codePoint = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`
  return Result.fail(`${label} must not contain control, formatting or invisible characters; found ${codePoint}`)
}
