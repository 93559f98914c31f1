/**
 * @coffer/kernel: the ports both services share, their errors, sign-in and small pure helpers (the host reads
 * its own settings).
 * No I/O and no runtime-specific APIs: everything here runs wherever Web Crypto does.
 */
export * as Cache from "./Cache.js"
export * as Cipher from "./Cipher.js"
export * as Clock from "./Clock.js"
export { DECODED_CREDENTIALS_MAX, DecodedCredentialsMax, decodeOnce } from "./decodeOnce.js"
export * as Encoding from "./encoding.js"
export * from "./errors.js"
export * as Generation from "./Generation.js"
export * as Hasher from "./Hasher.js"
export * as Housekeeping from "./Housekeeping.js"
export * as Identity from "./Identity.js"
export { parseLabel } from "./label.js"
export * as MasterKeyCheck from "./MasterKeyCheck.js"
// Also at the root, so that the declarations of a use case failing with it (creating a project) can name it.
export { MasterKeyMismatch } from "./MasterKeyCheck.js"
export * as Metrics from "./Metrics.js"
export { QUOTED_MAX, quote } from "./quote.js"
export * as Random from "./Random.js"
export * as RateLimiter from "./RateLimiter.js"
export * as Readiness from "./Readiness.js"
export * as Sessions from "./Sessions.js"
export * as SignIn from "./SignIn.js"
export { StoreUnavailable } from "./StoreUnavailable.js"
export { sortableId } from "./sortableId.js"
export { type EpochMillis, fromIso, fromIsoOrNull, toIso, toIsoOrNull } from "./time.js"
export { spanned } from "./tracing.js"
export { makeUseMarks } from "./useMarks.js"
export { parseWholeNumber, type WholeNumberRange } from "./wholeNumber.js"
