/** Row types of the secrets tables (see the migrations that create them). */
// biome-ignore lint/complexity/noBannedTypes: filled in as the secrets migrations arrive
export type SecretsTables = {}
