/**
 * A revealed value that holds characters a reader cannot see, or that reorder what is drawn (bidirectional
 * controls, as in "Trojan Source"; zero-width spaces; a byte order mark), is drawn as they make it look: `live`
 * may be `evil` reversed. The value is shown as it is, and named beside it, code point by code point, as code
 * review tools flag such text.
 */

/** Bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), U+200B and U+FEFF. */
const HIDDEN = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g

/** The distinct hidden characters of `value`, as `U+202E`, in the order they first appear. */
export const hiddenCharacters = (value: string): ReadonlyArray<string> => [
  ...new Set(
    [...value.matchAll(HIDDEN)].map(
      ([character]) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`,
    ),
  ),
]

/** Said beside a revealed value that holds hidden characters; nothing otherwise. */
export const HiddenCharactersNote = ({ value }: { readonly value: string }) => {
  const found = hiddenCharacters(value)
  if (found.length === 0) return null
  return (
    <p class="notice" role="note">
      This value holds characters that are invisible or change the order it is drawn in ({found.join(", ")}): it may not
      be what it looks like. Copy it rather than retype it.
    </p>
  )
}
