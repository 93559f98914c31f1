/**
 * The Schemas API (seed 000 §4, DESIGN.md "Saving a schema", the dashboard endpoints under `/api/_ui/v1`) as
 * typed calls. Body types are the core's own views (`@coffer/schemas`), imported as types only so none of the
 * server code reaches the bundle.
 */
import type { Lineage, Permissions, PlatformKind, Views } from "@coffer/schemas"
import { ApiError, del, get, post, request, type SignInOptions, segment } from "./client.js"

export type Kind = PlatformKind
export type DashboardPlatform = ReturnType<typeof Views.dashboardPlatform>
export type PlatformOverview = ReturnType<typeof Views.platformOverview>
export type VersionSummary = ReturnType<typeof Views.versionSummary>
export type RevisionSummary = ReturnType<typeof Views.revisionSummary>
/** A save's answer, and a restore's: the schema saved, the revision it is, the dependents re-processed. */
export interface SavedSchema {
  readonly ok: true
  readonly schema: Schema
  readonly revision: number
  readonly reprocessed: ReadonlyArray<string>
}
export type RevisionDetail = ReturnType<typeof Views.revisionDetail>
export type Ancestry = ReturnType<typeof Views.ancestry>
export type TokenRecord = ReturnType<typeof Views.tokenRecord>
export type AuditEntry = ReturnType<typeof Views.auditEntry>
export type SessionPermissions = Permissions.Permissions

export interface SchemasUser {
  readonly id: string
  readonly email: string
  readonly groups: ReadonlyArray<string>
}

/** `GET /api/auth/get-session`. */
export interface SchemasSession {
  readonly session: { readonly user: SchemasUser; readonly createdAt: string; readonly expiresAt: string }
  readonly permissions: SessionPermissions
}

/** `GET /api/_ui/v1/instance`. */
export interface SchemasInstance {
  readonly name: string
  readonly version: string
  readonly interfaceVersion: string
  readonly signIn: SignInOptions
}

/** A schema (`GET /api/{platform}/{version}`). */
export interface Schema {
  readonly content: Record<string, unknown>
  readonly dependencies: ReadonlyArray<string>
  readonly output: Record<string, unknown>
}

/**
 * A schema read to be edited (`GET /api/_ui/v1/platforms/{platform}/versions/{version}`): the schema and the
 * number of its latest revision, read together, which a save of content edited from it names as `expectedRevision`.
 */
export interface EditableSchema extends Schema {
  readonly revision: number
}

/** A schema that extends the target of a refused deletion (the 409's `blockedBy`). */
export interface BlockingSchema {
  readonly platform: string
  readonly version: string
  readonly extends: string
}

export type Dependent = Pick<Lineage.Dependent, "platform" | "version" | "extends">

const UI = "/api/_ui/v1"
const platformPath = (platform: string) => `${UI}/platforms/${segment(platform)}`
const versionPath = (platform: string, version: string) => `${platformPath(platform)}/versions/${segment(version)}`
const schemaPath = (platform: string, version: string) => `/api/${segment(platform)}/${segment(version)}`

export const instance = () => get<SchemasInstance>(`${UI}/instance`, { quietUnauthorized: true })
export const getSession = () =>
  get<SchemasSession>("/api/auth/get-session", { quietUnauthorized: true, sessionCheck: true })
export const devLogin = (email: string, groups: ReadonlyArray<string>) =>
  post<{ user: SchemasUser }>("/api/auth/dev-login", { email, groups }, { quietUnauthorized: true })

export const listPlatforms = () => get<ReadonlyArray<DashboardPlatform>>(`${UI}/platforms`)
/** The platform page's one read: the platform as listed, with a summary of each version's schema. */
export const readPlatform = (platform: string) => get<PlatformOverview>(platformPath(platform))
export const createPlatform = (name: string, kind: Kind) =>
  post<{ ok: true; platform: { name: string } }>(`${UI}/platforms`, { name, kind })
export const changeKind = (platform: string, kind: Kind) =>
  request<{ ok: true; platform: DashboardPlatform }>("PATCH", platformPath(platform), { body: { kind } })
export const deletePlatform = (platform: string) => del(platformPath(platform))

/**
 * Adds a version; with `content`, its schema is saved with it in the same transaction. `reprocessed`: the schemas a
 * `latest` or range reference moved onto it (without `content`, onto a version with no schema yet).
 */
export const addVersion = (platform: string, version: string, content?: unknown) =>
  post<{ ok: true; reprocessed: ReadonlyArray<string> }>(
    `/api/${segment(platform)}/versions`,
    content === undefined ? { version } : { version, content },
  )
export const deleteVersion = (platform: string, version: string) => del(versionPath(platform, version))

export const readSchema = (platform: string, version: string) => get<Schema>(schemaPath(platform, version))
/** The schema with the revision it is (404 while nothing is saved: a save then names revision 0). */
export const readSchemaToEdit = (platform: string, version: string) =>
  get<EditableSchema>(versionPath(platform, version))
/**
 * Saves the content. With `expectedRevision` (0: nothing saved yet), only on top of that revision: a save made since
 * is refused with 409, whose `savedRevisionOf` says the revision it is at now, instead of being replaced unseen.
 */
export const saveSchema = (platform: string, version: string, content: unknown, expectedRevision?: number) =>
  request<SavedSchema>("PUT", schemaPath(platform, version), {
    body: expectedRevision === undefined ? { content } : { content, expectedRevision },
  })

/**
 * Saves revision `revision`'s content again as the next revision, which names it (`restoredFrom`); only on top of
 * `expectedRevision`, refused with 409 (`savedRevisionOf`) as a save is.
 */
export const restoreRevision = (platform: string, version: string, revision: number, expectedRevision: number) =>
  post<SavedSchema>(`${versionPath(platform, version)}/revisions/${revision}/restore`, { expectedRevision })

/**
 * The revision a schema is at now (0: nothing saved), from a save refused because it was not at the
 * `expectedRevision` sent; `undefined` for any other refusal.
 */
export const savedRevisionOf = (error: unknown): number | undefined => {
  if (!(error instanceof ApiError) || error.status !== 409) return undefined
  const revision = (error.body as { revision?: unknown } | undefined)?.revision
  return typeof revision === "number" ? revision : undefined
}

export const listRevisions = (platform: string, version: string, before?: number) =>
  get<{ revisions: ReadonlyArray<RevisionSummary>; next: number | null }>(
    `${versionPath(platform, version)}/revisions?limit=50${before === undefined ? "" : `&before=${before}`}`,
  )
export const readRevision = (platform: string, version: string, revision: number) =>
  get<RevisionDetail>(`${versionPath(platform, version)}/revisions/${revision}`)
export const ancestorsOf = (platform: string, version: string) =>
  get<Ancestry>(`${versionPath(platform, version)}/ancestors`)
export const dependentsOf = (platform: string, version: string) =>
  get<{ dependents: ReadonlyArray<Dependent> }>(`${versionPath(platform, version)}/dependents`)

export const listTokens = () => get<ReadonlyArray<TokenRecord>>(`${UI}/tokens`)
export const createToken = (name: string, platforms: ReadonlyArray<string> | undefined) =>
  post<{ token: string; record: TokenRecord }>(`${UI}/tokens`, platforms === undefined ? { name } : { name, platforms })
export const revokeToken = (id: string) => del(`${UI}/tokens/${segment(id)}`)

export const listAudit = (before?: string) =>
  get<{ entries: ReadonlyArray<AuditEntry>; next: string | null }>(
    `${UI}/audit?limit=50${before === undefined ? "" : `&before=${encodeURIComponent(before)}`}`,
  )

/** The `blockedBy` of a refused deletion (409), or `undefined` for any other refusal. */
export const blockingSchemasOf = (error: unknown): ReadonlyArray<BlockingSchema> | undefined => {
  const body = (error as { body?: unknown } | null)?.body
  const blocked = (body as { blockedBy?: unknown } | undefined)?.blockedBy
  return Array.isArray(blocked) ? (blocked as ReadonlyArray<BlockingSchema>) : undefined
}
