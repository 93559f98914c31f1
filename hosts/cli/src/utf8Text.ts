/**
 * Bytes a user hands in (a piped value, a `.env` or JSON file) read as UTF-8, and refused when they are not:
 * a secret is text, and decoding with replacement would store U+FFFD in place of every byte that is not, saying
 * nothing (a DER key, a file saved as UTF-16 by Windows PowerShell).
 */
import { readFileSync } from "node:fs"
import * as Effect from "effect/Effect"
import { usage } from "./failure.js"

const strict = new TextDecoder("utf-8", { fatal: true })

/** `bytes` as text; `source` names them in the refusal (`stdin`, a file name). */
export const utf8Text = (bytes: Uint8Array, source: string) =>
  Effect.try({
    try: () => strict.decode(bytes),
    catch: () => {
      const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)
      return usage(
        utf16
          ? `${source} is UTF-16 text: save it as UTF-8`
          : `${source} is not UTF-8 text: a secret is text (encode binary data first, with base64 for one)`,
      )
    },
  })

/** A file the user names (`push`'s `.env`, `substitute`'s template), read whole as UTF-8 text. */
export const readTextFile = (file: string) =>
  Effect.try({
    try: () => readFileSync(file),
    catch: (error) => usage(`cannot read ${file}: ${error instanceof Error ? error.message : error}`),
  }).pipe(Effect.flatMap((bytes) => utf8Text(bytes, file)))
