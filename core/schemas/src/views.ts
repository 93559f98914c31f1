/**
 * The resources of seed 000 §2 and §4 as the endpoints answer them, in one place, as `@coffer/secrets` keeps
 * its own (`views.ts` there): platforms, schemas, token records and audit entries with ISO-8601 times. Each is a
 * Schema, and its type is the Schema's: the HTTP layer describes its answers with these same values in its
 * OpenAPI document, and the conformance test holds every answer to them. Stored records carry more (token hashes)
 * that must never leave the core; the functions below are where it is left behind. Fields a record does not have
 * are left out, not `null`.
 */
import * as Schema from "effect/Schema"
import { PlatformKind } from "./domain/platform.js"
import type {
  AuditEntry,
  PlatformOverview,
  PlatformRecord,
  Revision,
  RevisionSummary,
  TokenRecord,
  VersionSummary,
} from "./SchemaStore.js"
import type * as Lineage from "./usecases/lineage.js"

const iso = (ms: number) => new Date(ms).toISOString()

const Time = Schema.String.annotate({ description: "ISO 8601, UTC", format: "date-time" })
const Versions = Schema.Array(Schema.String).annotate({ description: "Version strings, in semantic-version order" })

/** An item of `GET /api/schemas`: `name` and `versions` (§4). */
export const PlatformSummary = Schema.Struct({ name: Schema.String, versions: Versions }).annotate({
  identifier: "PlatformSummary",
})
export type PlatformSummary = typeof PlatformSummary.Type

export const platformSummary = (platform: PlatformRecord): PlatformSummary => ({
  name: platform.name,
  versions: platform.versions,
})

/** `GET /api/{platform}`: `name`, `versions` and, when set, `kind`. */
export const PlatformDetail = Schema.Struct({
  name: Schema.String,
  versions: Versions,
  kind: Schema.optionalKey(PlatformKind),
}).annotate({ identifier: "Platform" })
export type PlatformDetail = typeof PlatformDetail.Type

export const platformDetail = (platform: PlatformRecord): PlatformDetail => ({
  name: platform.name,
  versions: platform.versions,
  ...(platform.kind === undefined ? {} : { kind: platform.kind }),
})

/** A platform as the dashboard lists it: `kind` always present, `custom` for records without one (§2). */
export const DashboardPlatform = Schema.Struct({
  name: Schema.String,
  kind: PlatformKind,
  versions: Versions,
}).annotate({ identifier: "DashboardPlatform" })
export type DashboardPlatform = typeof DashboardPlatform.Type

export const dashboardPlatform = (platform: PlatformRecord): DashboardPlatform => ({
  name: platform.name,
  kind: platform.kind ?? "custom",
  versions: platform.versions,
})

/**
 * A version as the dashboard's platform page lists it: whether a schema is saved and, when one is, its
 * `@extends` references as written, its latest revision and its last save. Never its content.
 */
export const VersionSummaryView = Schema.Struct({
  version: Schema.String,
  saved: Schema.Boolean,
  dependencies: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({ description: "The `@extends` references as written" }),
  ),
  revision: Schema.optionalKey(Schema.Int.annotate({ description: "The latest revision's number, from 1" })),
  savedAt: Schema.optionalKey(Time),
  savedBy: Schema.optionalKey(Schema.String),
}).annotate({ identifier: "VersionSummary", description: "Saved-schema fields are absent when none is saved" })
export type VersionSummaryView = typeof VersionSummaryView.Type

export const versionSummary = ({ version, schema }: VersionSummary): VersionSummaryView =>
  schema === undefined
    ? { version, saved: false }
    : {
        version,
        saved: true,
        dependencies: schema.dependencies,
        revision: schema.revision,
        savedAt: iso(schema.savedAt),
        savedBy: schema.savedBy,
      }

/** The dashboard's platform page in one answer: the platform as listed, and a summary per version. */
export const PlatformOverviewView = Schema.Struct({
  ...DashboardPlatform.fields,
  schemas: Schema.Array(VersionSummaryView).annotate({ description: "One per version, in `versions` order" }),
}).annotate({ identifier: "PlatformOverview" })
export type PlatformOverviewView = typeof PlatformOverviewView.Type

export const platformOverview = (overview: PlatformOverview): PlatformOverviewView => ({
  ...dashboardPlatform(overview),
  schemas: overview.summaries.map(versionSummary),
})

/** A schema as the data endpoints show it (§2 "Schema"). */
export const SchemaView = Schema.Struct({
  content: Schema.JsonObject,
  dependencies: Schema.Array(Schema.String).annotate({ description: "The `@extends` references as written" }),
  output: Schema.JsonObject,
}).annotate({ identifier: "Schema", description: "Content, declared dependencies, and the resolved output" })
export type SchemaView = typeof SchemaView.Type

/**
 * The dashboard's read of a schema to edit: the schema as the data endpoints show it and the revision it is, which
 * a save names as `expectedRevision`. Dashboard only: the seed's `GET /api/{platform}/{version}` keeps its shape.
 */
export const EditableSchemaView = Schema.Struct({
  ...SchemaView.fields,
  revision: Schema.Int.annotate({
    description: "The number of the latest revision: the `expectedRevision` of a save of content edited from this",
  }),
}).annotate({ identifier: "EditableSchema" })
export type EditableSchemaView = typeof EditableSchemaView.Type

/** An item of a schema's history: `{ revision, savedAt, savedBy, restoredFrom }`. */
export const RevisionSummaryView = Schema.Struct({
  revision: Schema.Int,
  savedAt: Time,
  savedBy: Schema.String,
  restoredFrom: Schema.NullOr(Schema.Int).annotate({
    description: "The revision whose content this one saved again, for a restore; null for any other save",
  }),
})
export type RevisionSummaryView = typeof RevisionSummaryView.Type

export const revisionSummary = (revision: RevisionSummary): RevisionSummaryView => ({
  revision: revision.revision,
  savedAt: iso(revision.savedAt),
  savedBy: revision.savedBy,
  restoredFrom: revision.restoredFrom ?? null,
})

/** One revision whole; `output` is `null` for revisions saved before outputs were kept with them. */
export const RevisionDetailView = Schema.Struct({
  ...RevisionSummaryView.fields,
  content: Schema.JsonObject,
  output: Schema.NullOr(Schema.JsonObject),
})
export type RevisionDetailView = typeof RevisionDetailView.Type

export const revisionDetail = (revision: Revision): RevisionDetailView => ({
  ...revisionSummary(revision),
  content: revision.content,
  output: revision.output ?? null,
})

const SchemaId = { platform: Schema.String, version: Schema.String }

/** A schema's ancestors up to the roots, and the schema each value of its output comes from. */
export const AncestryView = Schema.Struct({
  ancestors: Schema.Array(
    Schema.Struct({
      ...SchemaId,
      parents: Schema.Array(Schema.Struct({ reference: Schema.String, ...SchemaId })),
      saved: Schema.Boolean.annotate({
        description: "Whether a schema was saved for this version; one without merges in as an empty object",
      }),
    }),
  ),
  provenance: Schema.Array(Schema.Struct({ path: Schema.Array(Schema.String), source: Schema.String })),
})
export type AncestryView = typeof AncestryView.Type

export const ancestry = (found: Lineage.Ancestry): AncestryView => ({
  ancestors: found.ancestors.map((node) => ({
    platform: node.platform,
    version: node.version,
    parents: node.parents.map((parent) => ({
      reference: parent.reference,
      platform: parent.platform,
      version: parent.version,
    })),
    saved: node.saved,
  })),
  provenance: found.provenance.map((value) => ({ path: value.path, source: value.source })),
})

/** A schema that extends the given one directly or transitively. */
export const DependentView = Schema.Struct({
  ...SchemaId,
  extends: Schema.Array(Schema.String).annotate({
    description: "`platform/version` of each schema it extends among the given one and the other dependents",
  }),
})
export type DependentView = typeof DependentView.Type

export const dependent = (found: Lineage.Dependent): DependentView => ({
  platform: found.platform,
  version: found.version,
  extends: found.extends,
})

/** A token record (§2): never the token, nor its hash. */
export const TokenRecordView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  platforms: Schema.NullOr(Schema.Array(Schema.String)).annotate({
    description: "`null`: every platform; empty once every platform it named was deleted (it reads nothing)",
  }),
  hint: Schema.String,
  createdAt: Time,
  createdBy: Schema.String,
  lastUsedAt: Schema.optionalKey(Time),
}).annotate({ identifier: "TokenRecord" })
export type TokenRecordView = typeof TokenRecordView.Type

export const tokenRecord = (record: TokenRecord): TokenRecordView => ({
  id: record.id,
  name: record.name,
  platforms: record.platforms,
  hint: record.hint,
  createdAt: iso(record.createdAt),
  createdBy: record.createdBy,
  ...(record.lastUsedAt === undefined ? {} : { lastUsedAt: iso(record.lastUsedAt) }),
})

export const AuditEntryView = Schema.Struct({
  id: Schema.String,
  at: Time,
  actor: Schema.String,
  action: Schema.Literals(["platform.delete", "platform.kind", "version.delete", "token.create", "token.revoke"]),
  target: Schema.String,
  detail: Schema.optionalKey(Schema.Record(Schema.String, Schema.Json)),
}).annotate({ identifier: "SchemasAuditEntry" })
export type AuditEntryView = typeof AuditEntryView.Type

export const auditEntry = (entry: AuditEntry): AuditEntryView => ({
  id: entry.id,
  at: iso(entry.at),
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  ...(entry.detail === undefined ? {} : { detail: entry.detail }),
})

/** `GET /api/auth/get-session`'s `permissions` (§2 "Session permissions"). */
export const PermissionsView = Schema.Struct({
  write: Schema.Boolean,
  manage: Schema.Boolean,
  restricted: Schema.Array(Schema.String).annotate({ description: "Platforms the person cannot change" }),
})
