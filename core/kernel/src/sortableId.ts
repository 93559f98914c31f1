/**
 * Time-ordered row ids, for logs read "newest first" (both services' audit logs). An id is the time in
 * milliseconds, then a counter for ids made in the same millisecond by this process, then randomness: so the
 * order is exact for one instance's rows even when several land in one millisecond, and stores can order by
 * id without a database sequence. Across instances, rows of the same millisecond order arbitrarily.
 */

let lastMillis = -1
let sameMillisCount = 0

/** 9 base-36 digits of milliseconds (good until the year 5188), 4 of counter, then `random`. */
export const sortableId = (millis: number, random: string): string => {
  if (millis === lastMillis) sameMillisCount++
  else {
    lastMillis = millis
    sameMillisCount = 0
  }
  return `${millis.toString(36).padStart(9, "0")}${sameMillisCount.toString(36).padStart(4, "0")}${random}`
}
