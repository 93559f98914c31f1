/**
 * Which credentials this instance has counted a use of lately. A credential's `lastUsedAt` is written at most once a
 * period, through an atomic counter in the shared cache that lets the first use of each period through; asking
 * that counter on every request would be a cache write per request (issue 10). With these marks each instance asks
 * it only at the first use it sees in a period, so with several instances `lastUsedAt` may lag by up to two periods.
 */

/** Marks kept for `periodMs`: the answer says whether this is the first use of `id` this instance sees in it. */
export const makeUseMarks = (periodMs: number) => {
  const countedUntil = new Map<string, number>()
  return (id: string, now: number): boolean => {
    const counted = countedUntil.get(id)
    if (counted !== undefined && counted > now) return false
    // Once a period per credential: dropping the stale marks here keeps the map to the credentials in use.
    for (const [known, expiry] of countedUntil) if (expiry <= now) countedUntil.delete(known)
    countedUntil.set(id, now + periodMs)
    return true
  }
}
