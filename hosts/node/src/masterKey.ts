/**
 * The development master key: generated once into `.coffer/master.key` (mode 0600) so that a developer's
 * secrets survive restarts without any setup. Production never gets here: there the key must be given as
 * `COFFER_MASTER_KEY` and a missing one stops the start.
 */
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"

/** Reads the key file, creating it with a fresh random key when absent. Returns the base64 text. */
export const loadOrCreateDevelopmentKey = (file: string): string => {
  if (existsSync(file)) return readFileSync(file, "utf8").trim()
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const key = randomBytes(32).toString("base64")
  // `wx` fails instead of overwriting a key another process wrote a moment ago: that key may already seal data.
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readFileSync(file, "utf8").trim()
    throw error
  }
  chmodSync(file, 0o600)
  return key
}
