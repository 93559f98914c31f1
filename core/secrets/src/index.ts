/**
 * @coffer/secrets: the Secrets service. Its pure domain (names, slugs, exports, permissions, audit actions), its
 * ports (SecretStore, Accounts) and the use cases the HTTP layer runs: projects, people, environments, secrets and
 * their history, exports, API keys, the audit log, and the master-key rotation behind `coffer keys rotate`.
 */

// Also at the top level, so declaration builds of adapters can name it in inferred types.
export type { NewAccount } from "./Accounts.js"
export * as Accounts from "./Accounts.js"
export * from "./apiKeys.js"
export * from "./auditLog.js"
export * from "./Caller.js"
export * from "./dataKeys.js"
export * from "./domain/index.js"
export * from "./environments.js"
export * from "./errors.js"
export * as MemorySecretStore from "./MemorySecretStore.js"
export * from "./people.js"
export * from "./projects.js"
export * as SecretStore from "./SecretStore.js"
export * from "./secrets.js"
export {
  AccountLinkRequired,
  DEVELOPMENT_ISSUER,
  developmentSignIn,
  type SignInInput,
  secretsSignedIn,
  signIn,
} from "./signIn.js"
export * from "./views.js"
