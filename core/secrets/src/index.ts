/**
 * @coffer/secrets: the Secrets service. Its pure domain (names, slugs, exports, permissions, audit actions), its
 * ports (SecretStore, Accounts) and the use cases the HTTP layer runs: projects, people, environments, secrets and
 * their history, exports, API keys, the audit log, and the master-key rotation behind `coffer keys rotate`.
 */

// Also at the top level, so declaration builds of adapters can name it in inferred types.
export type { NewAccount } from "./Accounts.js"
export * as Accounts from "./Accounts.js"
export { type Actor, type ApiKeyActor, type SessionActor, sessionOnly } from "./access.js"
export * from "./domain/index.js"
export * from "./errors.js"
export * as MemorySecretStore from "./memory/MemorySecretStore.js"
export * as SecretStore from "./SecretStore.js"
export * as ApiKeyChecks from "./usecases/apiKeyChecks.js"
export * from "./usecases/apiKeys.js"
export * from "./usecases/audit.js"
export * from "./usecases/auditFilter.js"
export * from "./usecases/cliLogins.js"
export * from "./usecases/dataKeyRotation.js"
export * from "./usecases/dataKeys.js"
export * from "./usecases/environments.js"
export * from "./usecases/housekeeping.js"
export * from "./usecases/people.js"
export * from "./usecases/projects.js"
export * from "./usecases/sealing.js"
export * from "./usecases/secrets.js"
export {
  AccountLinkRequired,
  DEVELOPMENT_ISSUER,
  developmentIdentity,
  developmentSignIn,
  type SignInInput,
  secretsSignedIn,
  signIn,
  unlinkIdentity,
} from "./usecases/signIn.js"
export * from "./views.js"
