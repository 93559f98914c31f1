/** Row types of the schemas tables (see the migrations that create them). */
// biome-ignore lint/complexity/noBannedTypes: filled in as the schemas migrations arrive
export type SchemasTables = {}
