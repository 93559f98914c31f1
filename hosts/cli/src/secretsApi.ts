/**
 * The secrets service's endpoints the command uses (seed 001 §4), typed by the schemas below. Every answer is
 * decoded, so a server that answers something else fails with one line instead of a `TypeError` later.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CofferFailure, notFound } from "./failure.js"
import { decodeAnswer, type Endpoint, request, segment } from "./http.js"

export const User = Schema.Struct({ id: Schema.String, email: Schema.String })

export const KeyIdentity = Schema.Struct({
  id: Schema.String,
  scope: Schema.String,
  /** The holder's current role in the project, which the key never exceeds; a service before it was added omits it. */
  holderRole: Schema.optional(Schema.String),
  expiresAt: Schema.NullOr(Schema.String),
  project: Schema.Struct({ id: Schema.String, slug: Schema.String, name: Schema.String }),
})

export type KeyIdentity = typeof KeyIdentity.Type

export const Me = Schema.Struct({ user: User, apiKey: Schema.optional(KeyIdentity) })
export type Me = typeof Me.Type

const Project = Schema.Struct({ id: Schema.String, name: Schema.String, slug: Schema.String, role: Schema.String })
const Environment = Schema.Struct({ id: Schema.String, name: Schema.String, createdAt: Schema.String })

export const SecretItem = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  version: Schema.Number,
  /** Whether the value is empty, told without reading it; absent from services older than it. */
  empty: Schema.optional(Schema.Boolean),
  createdAt: Schema.String,
  updatedAt: Schema.String,
})
export type SecretItem = typeof SecretItem.Type

export const VersionItem = Schema.Struct({
  version: Schema.Number,
  createdAt: Schema.String,
  userId: Schema.NullOr(Schema.String),
  userEmail: Schema.NullOr(Schema.String),
  /** The version a restore brought back; a service before it was added omits it (`listVersions` answers null). */
  restoredFrom: Schema.optional(Schema.NullOr(Schema.Number)),
})
export type VersionItem = typeof VersionItem.Type

const Written = Schema.Struct({ action: Schema.String, version: Schema.Number })
export type Written = typeof Written.Type

export const ValueMap = Schema.Record(Schema.String, Schema.String)

/** Where an environment's secrets live. */
export interface Target {
  readonly endpoint: Endpoint
  readonly project: string
  readonly environment: string
}

const secretsPath = (target: Target) =>
  `/api/projects/${segment(target.project)}/environments/${segment(target.environment)}/secrets`

/**
 * A 404 with what was looked for: the service answers only "Environment not found" or "Secret not found", which
 * does not say whether a flag, COFFER_ENVIRONMENT or `.coffer.json` picked the wrong name. Then comes the project
 * the API key does reach, when it is another than `project`: a key belongs to one project, and the service
 * answers the same 404 for a project that is missing and one out of the key's reach. That is read from the key's
 * identity (`GET /api/auth/me`), not from the wording of the service's message, which is for people.
 */
const naming =
  (endpoint: Endpoint, project: string, what: string) =>
  <A, R>(effect: Effect.Effect<A, CofferFailure, R>) =>
    Effect.catchTag(effect, "CofferFailure", (failure) => {
      if (failure.kind !== "notFound") return Effect.fail(failure)
      return Effect.flatMap(Effect.option(me(endpoint)), (identity) => {
        const reached = Option.getOrUndefined(identity)?.apiKey?.project.slug
        const hint =
          reached === undefined || reached === project ? "" : `: this API key reaches project ${reached} only`
        return Effect.fail(
          new CofferFailure({
            kind: failure.kind,
            status: failure.status,
            message: `${failure.message} (${what})${hint}`,
          }),
        )
      })
    })

const place = (target: Target) => `${target.project}/${target.environment}`
const inTarget = (target: Target) => naming(target.endpoint, target.project, place(target))
const onSecret = (target: Target, key: string) => naming(target.endpoint, target.project, `${key} in ${place(target)}`)

export const me = (endpoint: Endpoint) =>
  request(endpoint, "GET", "/api/auth/me").pipe(Effect.flatMap(decodeAnswer(Me)))

export const projects = (endpoint: Endpoint) =>
  request(endpoint, "GET", "/api/projects").pipe(
    Effect.flatMap(decodeAnswer(Schema.Struct({ projects: Schema.Array(Project) }))),
    Effect.map((body) => body.projects),
  )

export const environments = (endpoint: Endpoint, project: string) =>
  request(endpoint, "GET", `/api/projects/${segment(project)}/environments`).pipe(
    naming(endpoint, project, project),
    Effect.flatMap(decodeAnswer(Schema.Struct({ environments: Schema.Array(Environment) }))),
    Effect.map((body) => body.environments),
  )

export const createEnvironment = (endpoint: Endpoint, project: string, name: string) =>
  request(endpoint, "POST", `/api/projects/${segment(project)}/environments`, { body: { name } }).pipe(
    naming(endpoint, project, project),
    Effect.flatMap(decodeAnswer(Schema.Struct({ environment: Environment }))),
    Effect.map((body) => body.environment),
  )

/** Deletes the environment `name` and every secret in it, with their history. */
export const deleteEnvironment = (endpoint: Endpoint, project: string, name: string) =>
  request(endpoint, "DELETE", `/api/projects/${segment(project)}/environments/${segment(name)}`).pipe(
    naming(endpoint, project, `${project}/${name}`),
    Effect.asVoid,
  )

export const listSecrets = (target: Target) =>
  request(target.endpoint, "GET", secretsPath(target)).pipe(
    inTarget(target),
    Effect.flatMap(decodeAnswer(Schema.Struct({ secrets: Schema.Array(SecretItem) }))),
    Effect.map((body) => body.secrets),
  )

/** Every key and value, exactly (the JSON export; audited as `secrets.exported json`). */
export const exportJson = (target: Target) =>
  request(target.endpoint, "GET", `${secretsPath(target)}/json`).pipe(
    inTarget(target),
    Effect.flatMap(decodeAnswer(ValueMap)),
  )

/** The service's own `.env` export, byte for byte. */
export const exportDotenv = (target: Target) =>
  request(target.endpoint, "GET", `${secretsPath(target)}/.env`, { as: "text" }).pipe(
    inTarget(target),
    Effect.flatMap(decodeAnswer(Schema.String)),
  )

const SecretValue = Schema.Struct({ secret: Schema.Struct({ key: Schema.String, value: Schema.String }) })

/** Keys whose own path is an export: seed 001 §4 puts `/json` and `/.env` beside `/:key`, and they win. */
const EXPORT_KEYS: ReadonlySet<string> = new Set(["json", ".env"])

/** A secret's value through its history: the newest of `GET …/:key/versions`, read with `…/versions/:n`. */
const newestVersion = (target: Target, key: string) =>
  Effect.gen(function* () {
    const versions = yield* listVersions(target, key)
    const newest = Math.max(...versions.map((item) => item.version))
    if (!Number.isFinite(newest)) return yield* notFound(`${key} has no version to read`)
    const body = yield* request(
      target.endpoint,
      "GET",
      `${secretsPath(target)}/${segment(key)}/versions/${newest}`,
    ).pipe(onSecret(target, key))
    return (yield* decodeAnswer(SecretValue)(body)).secret
  })

/** One secret's key and value; a key named like an export is read through its history instead. */
export const getSecret = (target: Target, key: string) =>
  EXPORT_KEYS.has(key)
    ? newestVersion(target, key)
    : request(target.endpoint, "GET", `${secretsPath(target)}/${segment(key)}`).pipe(
        onSecret(target, key),
        Effect.flatMap(decodeAnswer(SecretValue)),
        Effect.map((body) => body.secret),
      )

/**
 * Writes `value` as the key's next version; with `expectedVersion`, only on top of that version (0: only as a new
 * key), else the service answers 409 naming the version it is at, and nothing is written.
 */
export const setSecret = (target: Target, key: string, value: string, expectedVersion?: number) =>
  request(target.endpoint, "POST", secretsPath(target), {
    body: expectedVersion === undefined ? { key, value } : { key, value, expectedVersion },
  }).pipe(inTarget(target), Effect.flatMap(decodeAnswer(Written)))

/** With `expectedVersion`, only while the secret is at that version: a 409 (refused) when it changed since. */
export const deleteSecret = (target: Target, key: string, expectedVersion?: number) =>
  request(
    target.endpoint,
    "DELETE",
    `${secretsPath(target)}/${segment(key)}${expectedVersion === undefined ? "" : `?expectedVersion=${expectedVersion}`}`,
  ).pipe(onSecret(target, key), Effect.asVoid)

export const listVersions = (target: Target, key: string) =>
  request(target.endpoint, "GET", `${secretsPath(target)}/${segment(key)}/versions`).pipe(
    onSecret(target, key),
    Effect.flatMap(decodeAnswer(Schema.Struct({ versions: Schema.Array(VersionItem) }))),
    // Null, not missing, from an older service too: a script reading `--json` sees one shape.
    Effect.map((body) => body.versions.map((item) => ({ ...item, restoredFrom: item.restoredFrom ?? null }))),
  )

export const restoreVersion = (target: Target, key: string, version: number) =>
  request(target.endpoint, "POST", `${secretsPath(target)}/${segment(key)}/versions/${version}/restore`).pipe(
    naming(target.endpoint, target.project, `${key} version ${version} in ${place(target)}`),
    Effect.flatMap(decodeAnswer(Written)),
  )

/** Seed 001's audit entry, whole: `--json` hands scripts everything the service says. */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  userEmail: Schema.String,
  projectId: Schema.String,
  environmentId: Schema.NullOr(Schema.String),
  action: Schema.String,
  targetKey: Schema.String,
  ipAddress: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  /** The API key the person acted through and its name then, null for a session; a service before it omits it. */
  apiKey: Schema.optional(Schema.NullOr(Schema.Struct({ id: Schema.String, name: Schema.String }))),
})
export type AuditEntry = typeof AuditEntry.Type

/** The filters and page of `GET …/audit-log`; an absent one is not sent. */
export interface AuditQuery {
  readonly action?: string | undefined
  readonly key?: string | undefined
  readonly user?: string | undefined
  readonly environment?: string | undefined
  readonly apiKey?: string | undefined
  readonly limit: number
  readonly offset: number
}

/** A project's audit log, newest first, filtered and paged by the service. */
export const auditLog = (endpoint: Endpoint, project: string, query: AuditQuery) => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value))
  return request(endpoint, "GET", `/api/projects/${segment(project)}/audit-log?${search}`).pipe(
    naming(endpoint, project, query.environment === undefined ? project : `${project}/${query.environment}`),
    Effect.flatMap(decodeAnswer(Schema.Struct({ auditLog: Schema.Array(AuditEntry) }))),
    Effect.map((body) => body.auditLog),
  )
}
