/**
 * The one time type at the ports of both services: an instant is epoch milliseconds, the unit `Clock.now`
 * answers in, so expiry checks and orders are arithmetic and no port has to agree on a text format. ISO 8601
 * is a presentation: the views write it into HTTP answers, and SQL adapters into their text columns.
 */

/** Milliseconds since the Unix epoch (UTC). */
export type EpochMillis = number

/** ISO 8601 UTC with milliseconds (`2026-01-31T12:00:00.000Z`): fixed width, so comparing texts compares instants. */
export const toIso = (millis: EpochMillis): string => new Date(millis).toISOString()

/** The instant an ISO 8601 text names. */
export const fromIso = (text: string): EpochMillis => Date.parse(text)

/** `toIso` for an instant that may be absent (an API key that never expires, one never used). */
export const toIsoOrNull = (millis: EpochMillis | null): string | null => (millis === null ? null : toIso(millis))

/** `fromIso` for a text that may be absent. */
export const fromIsoOrNull = (text: string | null): EpochMillis | null => (text === null ? null : fromIso(text))
