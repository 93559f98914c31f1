/**
 * @coffer/secrets: the Secrets service's domain (names, slugs, exports, permissions, audit actions) and, as
 * they arrive, its use cases and the SecretStore port.
 */
export * from "./domain/index.js"
