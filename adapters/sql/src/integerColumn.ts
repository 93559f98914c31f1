/**
 * The largest number an `integer` column holds on Postgres (`int4`; SQLite's are wider), which the stores' version
 * and revision numbers live in. Postgres refuses a larger parameter with an error rather than finding no row, so a
 * number past it, which names nothing stored, is answered without asking.
 */
export const MAX_INTEGER = 2 ** 31 - 1
