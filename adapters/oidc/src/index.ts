/**
 * @coffer/adapter-oidc: the Identity port on an OpenID Connect provider (openid-client for sign-in, jose for
 * back-channel logout tokens).
 */
export * as OidcIdentity from "./OidcIdentity.js"
