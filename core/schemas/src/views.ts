/**
 * The resources of seed 000 §2 and §4 as the endpoints answer them, in one place, as `@coffer/secrets` keeps
 * its own (`views.ts` there): platforms, token records and audit entries with ISO-8601 times. Stored records
 * carry more (token hashes) that must never leave the core; these functions are where it is left behind.
 * Fields a record does not have are left out, not `null`.
 */
import type { AuditEntry, PlatformRecord, Revision, RevisionSummary, TokenRecord } from "./SchemaStore.js"
import type * as Lineage from "./usecases/lineage.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** An item of `GET /api/schemas`: `name` and `versions` (§4). */
export const platformSummary = (platform: PlatformRecord) => ({ name: platform.name, versions: platform.versions })

/** `GET /api/{platform}`: `name`, `versions` and, when set, `kind`. */
export const platformDetail = (platform: PlatformRecord) => ({
  name: platform.name,
  versions: platform.versions,
  ...(platform.kind === undefined ? {} : { kind: platform.kind }),
})

/** A platform as the dashboard lists it: `kind` always present, `custom` for records without one (§2). */
export const dashboardPlatform = (platform: PlatformRecord) => ({
  name: platform.name,
  kind: platform.kind ?? "custom",
  versions: platform.versions,
})

/** An item of a schema's history: `{ revision, savedAt, savedBy }`. */
export const revisionSummary = (revision: RevisionSummary) => ({
  revision: revision.revision,
  savedAt: iso(revision.savedAt),
  savedBy: revision.savedBy,
})

/** One revision whole; `output` is `null` for revisions saved before outputs were kept with them. */
export const revisionDetail = (revision: Revision) => ({
  ...revisionSummary(revision),
  content: revision.content,
  output: revision.output ?? null,
})

export const ancestry = (found: Lineage.Ancestry) => ({
  ancestors: found.ancestors.map((node) => ({
    platform: node.platform,
    version: node.version,
    parents: node.parents.map((parent) => ({
      reference: parent.reference,
      platform: parent.platform,
      version: parent.version,
    })),
  })),
  provenance: found.provenance.map((value) => ({ path: value.path, source: value.source })),
})

/** A token record (§2): never the token, nor its hash. */
export const tokenRecord = (record: TokenRecord) => ({
  id: record.id,
  name: record.name,
  platforms: record.platforms,
  hint: record.hint,
  createdAt: iso(record.createdAt),
  createdBy: record.createdBy,
  ...(record.lastUsedAt === undefined ? {} : { lastUsedAt: iso(record.lastUsedAt) }),
})

export const auditEntry = (entry: AuditEntry) => ({
  id: entry.id,
  at: iso(entry.at),
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  ...(entry.detail === undefined ? {} : { detail: entry.detail }),
})
