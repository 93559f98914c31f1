/**
 * The `shell` form of `coffer secrets pull`: `export KEY='value'` lines that any POSIX shell can `source` or
 * `eval`, every value single-quoted (a `'` inside written as `'\''`), so nothing in a value is expanded or run.
 * Keys that cannot be shell variable names (they may hold `.` and `-`) are left out, and named on stderr: the `.env`
 * export writes them for dotenv parsers, but an `export` of such a name is an error in every shell. So are keys whose
 * value holds a NUL character, which no shell variable can hold (bash drops it with a warning, others cut the value
 * there): as `secrets run` leaves them out of a process environment.
 */

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export const isShellName = (key: string): boolean => SHELL_NAME.test(key)

export const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`

/** The script for `values`, keys sorted; the keys left out are returned beside it, by reason. */
export const toShell = (values: Readonly<Record<string, string>>) => {
  const keys = Object.keys(values).sort()
  const skipped = keys.filter((key) => !isShellName(key))
  const holdingNul = keys.filter((key) => isShellName(key) && (values[key] ?? "").includes("\0"))
  const text = keys
    .filter((key) => isShellName(key) && !holdingNul.includes(key))
    .map((key) => `export ${key}=${shellQuote(values[key] ?? "")}\n`)
    .join("")
  return { text, skipped, holdingNul }
}
