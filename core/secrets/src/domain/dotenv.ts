/**
 * The two export formats of an environment's secrets (seed 001 §4, `GET …/secrets/.env` and `…/secrets/json`).
 *
 * `.env` follows exactly the four output rules of the seed, so that the file is read by dotenv parsers and can be
 * `source`d by a POSIX shell without anything being expanded or run:
 *
 * 1. a value made only of letters, digits and `_ . / : @ % + , = -` is written bare (the empty value too,
 *    as `KEY=`, which both bash and the `dotenv` package read as the empty string);
 * 2. any other value is wrapped in single quotes, line breaks included, and read literally;
 * 3. a value containing `'` is wrapped in double quotes, with `\`, `"`, `$` and backtick escaped;
 * 4. keys that are not valid names are left out: names the naming rules refuse (seed 001 §2), which only data
 *    stored by an earlier implementation can hold.
 *
 * Every key the service accepts is written, so a key holding `-` or `.`, or starting with a digit, is in the file
 * as dotenv parsers read it, though no shell variable can take its name: a shell that sources the file reports its
 * line as a command not found, runs nothing, and assigns every other line (`coffer secrets pull --format shell`
 * leaves such keys out, and says so).
 *
 * What the `dotenv` package gives back, measured by the tests beside this file: every value exactly, except
 * that it turns CR and CRLF into LF, reads a single-quoted value ending in `\` as running on (it takes `\'`
 * for an escaped quote), and under rule 3 keeps the backslashes when the value also has one of the four
 * escaped characters. None of these can be avoided within the rules. The JSON export is the exact form; a
 * shell gets every value exactly, except NUL, which no shell variable can hold (bash drops it).
 */

import { isSecretKey } from "./names.js"

/** One secret as exported: stored data, so the key may be one an earlier implementation allowed. */
export interface ExportEntry {
  readonly key: string
  readonly value: string
}

const BARE_VALUE = /^[A-Za-z0-9_./:@%+,=-]*$/
// Inside double quotes a shell still gives these four a meaning; a backslash makes each literal.
const SPECIAL_IN_DOUBLE_QUOTES = /[\\"$`]/g

/** The right-hand side of `KEY=…` for `value`, by rules 1 to 3. */
export const dotenvValue = (value: string): string => {
  if (BARE_VALUE.test(value)) return value
  if (!value.includes("'")) return `'${value}'`
  return `"${value.replace(SPECIAL_IN_DOUBLE_QUOTES, "\\$&")}"`
}

/**
 * The `.env` file for `entries`: one `KEY=value` line each, in the order given, every line ending in `\n`;
 * entries whose key is not a valid name are left out (rule 4).
 */
export const toDotenv = (entries: ReadonlyArray<ExportEntry>): string => {
  let text = ""
  for (const { key, value } of entries) if (isSecretKey(key)) text += `${key}=${dotenvValue(value)}\n`
  return text
}

/**
 * The JSON export: an object mapping every key to its value, every key included. It has no prototype and
 * its properties are defined, not assigned, so a key such as `__proto__` or `constructor` is an ordinary
 * entry and `JSON.stringify` writes it like any other.
 */
export const toJsonExport = (entries: ReadonlyArray<ExportEntry>): Readonly<Record<string, string>> => {
  const result: Record<string, string> = Object.create(null)
  for (const { key, value } of entries)
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true })
  return result
}

/** Whether `key` is an array index, which `JSON.stringify` writes before every other key of an object. */
const isArrayIndex = (key: string): boolean => {
  const n = Number(key)
  return n >>> 0 === n && n !== 4_294_967_295 && String(n) === key
}

/**
 * The JSON export as the text `JSON.stringify(toJsonExport(entries))` gives, byte for byte, without building the
 * object: keys that are array indexes first in ascending order, every other key in the order given, a repeated key
 * at its first place with its last value. Each key and value is quoted by `JSON.stringify` itself.
 */
export const toJsonExportText = (entries: ReadonlyArray<ExportEntry>): string => {
  const byKey = new Map<string, string>()
  for (const { key, value } of entries) byKey.set(key, value)
  const indexes: Array<string> = []
  const parts: Array<string> = []
  for (const [key, value] of byKey) {
    if (isArrayIndex(key)) indexes.push(key)
    else parts.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`)
  }
  if (indexes.length > 0) {
    indexes.sort((a, b) => Number(a) - Number(b))
    parts.unshift(...indexes.map((key) => `${JSON.stringify(key)}:${JSON.stringify(byKey.get(key))}`))
  }
  return `{${parts.join(",")}}`
}
