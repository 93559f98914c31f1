/** Row types of the sessions tables (see the migrations that create them). */
// biome-ignore lint/complexity/noBannedTypes: filled in as the sessions migrations arrive
export type SessionTables = {}
