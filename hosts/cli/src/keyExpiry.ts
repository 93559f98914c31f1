/**
 * An API key's coming expiry, said while there is time to act on it. The Secrets service answers every request made
 * with a key that expires with `Coffer-Api-Key-Expires` (ISO 8601; core/http `secrets/context.ts`), as GitHub's API
 * answers `github-authentication-token-expiration`: a CI job's key would otherwise stop one day with a 401 and
 * nothing before it. In the last `WARN_DAYS` days the command says so on stderr, once: a process runs one command.
 */
import * as Effect from "effect/Effect"
import { note } from "./output.js"

export const API_KEY_EXPIRES_HEADER = "Coffer-Api-Key-Expires"

/** GitHub mails a week before a token expires; a weekly CI job still sees the warning once. */
export const WARN_DAYS = 7

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

let noted = false

/** How long `ms` is, in the largest whole unit a person reads at a glance. */
export const timeLeft = (ms: number): string => {
  const say = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`
  if (ms >= DAY) return say(Math.floor(ms / DAY), "day")
  if (ms >= HOUR) return say(Math.floor(ms / HOUR), "hour")
  return say(Math.max(1, Math.floor(ms / MINUTE)), "minute")
}

/** Notes the expiry an answer's header gives, when it is `WARN_DAYS` days away or less. */
export const noteExpiry = (header: string | null, now: number = Date.now()): Effect.Effect<void> => {
  if (header === null || noted) return Effect.void
  const at = Date.parse(header)
  if (!Number.isFinite(at) || at - now > WARN_DAYS * DAY || at <= now) return Effect.void
  noted = true
  return note(
    `this API key expires in ${timeLeft(at - now)} (${header}): make a new one before then (API keys in the web app, or coffer login --web)`,
  )
}
