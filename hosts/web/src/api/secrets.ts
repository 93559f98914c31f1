/**
 * The Secrets API (seed 001 §4) as typed calls. Body types are the core's own views (`@coffer/secrets`),
 * imported as types only so none of the server code reaches the bundle.
 */
import type {
  ApiKeyView,
  AuditAction,
  AuditView,
  EnvironmentView,
  InviteView,
  MemberView,
  ProjectView,
  SecretListItem,
  SecretView,
  VersionListItem,
  VersionView,
} from "@coffer/secrets"
import { ApiError, del, get, patch, post, type SignInOptions, segment } from "./client.js"

export type {
  ApiKeyView,
  AuditAction,
  AuditView,
  EnvironmentView,
  InviteView,
  MemberView,
  ProjectView,
  SecretListItem,
  SecretView,
  VersionListItem,
  VersionView,
}

export interface User {
  readonly id: string
  readonly email: string
}

/** `GET /api/instance` (seed 001 §2 "instance description"). */
export interface Instance {
  readonly name: string
  readonly version: string
  readonly signIn: SignInOptions
}

const project = (slug: string) => `/api/projects/${segment(slug)}`
const secretsOf = (slug: string, env: string) => `${project(slug)}/environments/${segment(env)}/secrets`
const secretPath = (slug: string, env: string, key: string) => `${secretsOf(slug, env)}/${segment(key)}`
/** The export routes' last segments, which a secret's own key can also be. */
const EXPORT_SEGMENTS: ReadonlySet<string> = new Set([".env", "json"])

export const instance = () => get<Instance>("/api/instance", { quietUnauthorized: true })
export const me = () => get<{ user: User }>("/api/auth/me", { quietUnauthorized: true, sessionCheck: true })
export const devLogin = (email: string) =>
  post<{ user: User }>("/api/auth/dev-login", { email }, { quietUnauthorized: true })
export const logout = () => post<{ ok: true }>("/api/auth/logout")

export const listProjects = () => get<{ projects: ReadonlyArray<ProjectView> }>("/api/projects")
export const createProject = (name: string) => post<{ project: ProjectView }>("/api/projects", { name })
export const getProject = (slug: string) =>
  get<{ project: ProjectView; environments: ReadonlyArray<EnvironmentView> }>(project(slug))
export const deleteProject = (slug: string) => del(project(slug))

export const createEnvironment = (slug: string, name: string) =>
  post<{ environment: EnvironmentView }>(`${project(slug)}/environments`, { name })
export const deleteEnvironment = (slug: string, env: string) => del(`${project(slug)}/environments/${segment(env)}`)

export const listSecrets = (slug: string, env: string, signal?: AbortSignal) =>
  get<{ secrets: ReadonlyArray<SecretListItem> }>(secretsOf(slug, env), { signal })
/**
 * Writes a value as the secret's next version. With `expectedVersion` (0: the key must not exist yet), only on top
 * of that version: a change saved since the caller read it is refused with 409, whose `currentVersionOf` says
 * which version it is at now, instead of being replaced unseen.
 */
export const setSecret = (slug: string, env: string, key: string, value: string, expectedVersion?: number) =>
  post<{ ok: true; action: "created" | "updated"; version: number }>(
    secretsOf(slug, env),
    expectedVersion === undefined ? { key, value } : { key, value, expectedVersion },
  )

/**
 * The version a secret is at now (0: it does not exist), from a write refused because it was not at the
 * `expectedVersion` sent; `undefined` for any other refusal.
 */
export const currentVersionOf = (error: unknown): number | undefined => {
  if (!(error instanceof ApiError) || error.status !== 409) return undefined
  const current = (error.body as { currentVersion?: unknown } | undefined)?.currentVersion
  return typeof current === "number" ? current : undefined
}
/**
 * Deletes a secret with its history. With `expectedVersion`, only while it is at the version the caller saw: one
 * saved (or deleted and added again) since is refused with 409, whose `currentVersionOf` says which version it is at.
 */
export const deleteSecret = (slug: string, env: string, key: string, expectedVersion?: number) =>
  del(`${secretPath(slug, env, key)}${expectedVersion === undefined ? "" : `?expectedVersion=${expectedVersion}`}`)

export const listVersions = (slug: string, env: string, key: string) =>
  get<{ versions: ReadonlyArray<VersionListItem> }>(`${secretPath(slug, env, key)}/versions`)
export const readVersion = (slug: string, env: string, key: string, version: number) =>
  get<{ secret: VersionView }>(`${secretPath(slug, env, key)}/versions/${version}`)
export const restoreVersion = (slug: string, env: string, key: string, version: number) =>
  post<{ ok: true; action: "restored"; version: number }>(`${secretPath(slug, env, key)}/versions/${version}/restore`)

/**
 * The current value of a secret, its version and its id (audited). `GET …/secrets/.env` and `…/secrets/json` are the
 * environment's exports (seed 001 §4 puts them beside `/:key`), so a secret with one of those keys is read through
 * its history instead: its newest version, audited as a read of `<key>@<n>`, without an id. Asked by its key, the
 * service would answer the export.
 */
export const readSecret = async (
  slug: string,
  env: string,
  key: string,
): Promise<{ readonly value: string; readonly version: number; readonly id?: string }> => {
  if (!EXPORT_SEGMENTS.has(key)) return (await get<{ secret: SecretView }>(secretPath(slug, env, key))).secret
  const { versions } = await listVersions(slug, env, key)
  const newest = versions[0]
  if (newest === undefined) throw new ApiError(404, `${key} has no versions`)
  return (await readVersion(slug, env, key, newest.version)).secret
}

/** Where the browser downloads an environment's `.env` or JSON export (a plain same-origin link). */
export const exportUrl = (slug: string, env: string, format: "dotenv" | "json") =>
  `${secretsOf(slug, env)}/${format === "dotenv" ? ".env" : "json"}`

/** Every key and value of an environment, as its JSON export (audited as one export). */
export const exportValues = (slug: string, env: string) => get<Record<string, string>>(exportUrl(slug, env, "json"))

export type MemberRole = "read" | "write"

export const listMembers = (slug: string) => get<{ members: ReadonlyArray<MemberView> }>(`${project(slug)}/members`)
export const updateMemberRole = (slug: string, userId: string, role: MemberRole) =>
  patch<{ ok: true }>(`${project(slug)}/members/${segment(userId)}`, { role })
export const removeMember = (slug: string, userId: string) => del(`${project(slug)}/members/${segment(userId)}`)

export const listInvites = (slug: string) => get<{ invites: ReadonlyArray<InviteView> }>(`${project(slug)}/invites`)
export const createInvite = (slug: string, role: MemberRole) =>
  post<{ invite: InviteView; token: string; url: string }>(`${project(slug)}/invites`, { role })
export const deleteInvite = (slug: string, id: string) => del(`${project(slug)}/invites/${segment(id)}`)
export const acceptInvite = (token: string) => post<{ project: ProjectView }>("/api/invites/accept", { token })

/** What creating or rotating a key answers: the raw key, this once. */
export interface IssuedApiKey {
  readonly key: string
  readonly prefix: string
  readonly name: string
  readonly scope: MemberRole
  readonly expiresAt: string | null
}

export const listApiKeys = (projectSlug?: string) =>
  get<{ apiKeys: ReadonlyArray<ApiKeyView> }>(
    projectSlug === undefined ? "/api/api-keys" : `/api/api-keys?project=${segment(projectSlug)}`,
  )
export const createApiKey = (input: {
  readonly name: string
  readonly projectSlug: string
  readonly scope: MemberRole
  readonly expiresInDays?: number
}) => post<IssuedApiKey>("/api/api-keys", input)
export const rotateApiKey = (id: string, expiresInDays?: number) =>
  post<IssuedApiKey>(`/api/api-keys/${segment(id)}/rotate`, expiresInDays === undefined ? {} : { expiresInDays })
export const deleteApiKey = (id: string) => del(`/api/api-keys/${segment(id)}`)

/** The audit log's filters (`GET …/audit-log`): each narrows the log; an absent one does not. */
export interface AuditFilters {
  readonly action?: string | undefined
  /** A secret key: its records, old versions included, in every environment unless `environment` is given. */
  readonly key?: string | undefined
  /** An e-mail address, in any letter case. */
  readonly user?: string | undefined
  /** An environment's name. */
  readonly environment?: string | undefined
  /** An API key's id: what was done with that key (an entry's `apiKey.id`, an API key's `id`). */
  readonly apiKey?: string | undefined
}

export const AUDIT_FILTER_NAMES = ["action", "key", "user", "environment", "apiKey"] as const

export const listAuditLog = (slug: string, limit: number, offset: number, filters: AuditFilters = {}) => {
  const query = new URLSearchParams({ limit: String(limit), offset: String(offset) })
  for (const name of AUDIT_FILTER_NAMES) {
    const value = filters[name]
    if (value !== undefined) query.set(name, value)
  }
  return get<{ auditLog: ReadonlyArray<AuditView> }>(`${project(slug)}/audit-log?${query}`)
}

/** A command-line login waiting for approval (`coffer login --web`). */
export interface PendingCliLogin {
  readonly name: string
  readonly createdAt: string
  readonly expiresAt: string
}

const cliLogin = (userCode: string) => `/api/cli-logins/${segment(userCode)}`
export const getCliLogin = (userCode: string) => get<PendingCliLogin>(cliLogin(userCode))
export const approveCliLogin = (
  userCode: string,
  input: { readonly projectSlug: string; readonly scope: MemberRole; readonly expiresInDays?: number },
) => post<{ ok: true }>(`${cliLogin(userCode)}/approve`, input)
export const denyCliLogin = (userCode: string) => post<{ ok: true }>(`${cliLogin(userCode)}/deny`)
