/**
 * @coffer/secrets: the Secrets service's domain (names, slugs, exports, permissions, audit actions) and, as
 * they arrive, its use cases and the SecretStore port.
 */
export * as Accounts from "./Accounts.js"
export * from "./domain/index.js"
export { AccountLinkRequired, DEVELOPMENT_ISSUER, developmentSignIn, type SignInInput, signIn } from "./signIn.js"
