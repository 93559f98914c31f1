/**
 * The SchemaStore port: where platforms, versions, schemas, their dependency edges and revisions, API tokens and
 * the audit log live. Adapters supply storage only (rows in, rows out); every rule of the service (resolution,
 * cascade, permissions, caching) lives in the use cases, which call these primitives.
 *
 * Rules every adapter MUST keep (each is checked by the contract suite in `test/contract/src/schemaStore.ts`):
 * 1. Platforms come back sorted by name, and every version list sorted by `compareVersions`; a version string is
 *    stored and returned exactly as given (no trimming, `1.0.0+b` and `1.0.0+B` are two versions).
 * 2. `insertPlatform` creates a platform only when the name is free and says whether it did; under concurrent
 *    calls with one name exactly one wins. `insertVersions` skips versions already listed.
 * 3. `loadPlatforms(names)` answers for many platforms at once (one round trip, or a fixed few, whatever the
 *    number of names): their versions and the content saved per version; names that do not exist are absent
 *    from the map. `dependentsOf(platforms)` answers likewise for edges. The cascade relies on both to load a
 *    dependency closure in a number of queries that grows with its depth, never with its size.
 * 4. `saveSchema` requires the version to exist; it replaces the content, dependencies, output and sources,
 *    replaces the schema's dependency edges with exactly `dependencyEdges(id, dependencies)`, and appends one
 *    revision. `saveOutputs` changes only outputs and sources, of schemas that exist, and appends no revision.
 * 5. A schema saved without `sources` reads back with `sources: undefined` ("unknown", as for a schema saved
 *    before sources were recorded); a list reads back sorted and distinct.
 * 6. Removing a version removes its schema, its revisions and the edges it holds; removing a platform removes
 *    all of that for each of its versions, and its name from every token's list of platforms (a list it empties
 *    stays, empty: such a token reads nothing, never every platform), answering the tokens it changed. Edges
 *    other schemas hold towards them are left for the caller to judge (it refuses the deletion while any exists).
 * 7. `transaction(effect)` is all or nothing: when `effect` fails, dies or is interrupted no write made inside
 *    it is visible afterwards. Transactions that write do not interleave: one waits for the other, so a cascade
 *    always computes from data no concurrent save is changing. Nested calls join the outer transaction.
 * 8. Tokens are found by hash only; `removeToken` returns the removed token (so its cache entry can be dropped)
 *    and `undefined` the second time. The plaintext token never reaches the store.
 * 9. Audit entries come back newest first (by `at`, then `id`), `before` excluding that entry and everything
 *    newer, at most `limit` of them.
 * 10. Every failure to reach the backing store is `StoreUnavailable`; anything else is a defect.
 * 11. A revision keeps the content saved and the output that save produced (a later cascade changes the schema's
 *     output, never a revision's). `listRevisions` pages newest first, `before` excluding that revision and every
 *     newer one, at most `limit`, without contents; `findRevision` answers one revision whole, or `undefined`.
 *     A revision made by a restore keeps the number of the revision it brought back (`restoredFrom`); any other
 *     reads back without it, as do revisions stored before restores were recorded.
 * 12. `platformOverview` answers a platform with one summary per version, in `versions` order, in one round trip
 *     whatever the number of versions, without reading any content: the revision of a saved schema is the number
 *     of its latest revision, and who saved it when are those of its last save.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { DependencyEdge } from "./domain/cascade.js"
import type { PlatformKind } from "./domain/platform.js"
import type { PlatformSnapshot } from "./domain/resolve.js"
import type { SchemaId } from "./domain/schemaId.js"

/** A platform as the data endpoints show it. */
export interface PlatformRecord {
  readonly name: string
  /** Absent for platforms created without one (shown as Custom by the dashboard). */
  readonly kind: PlatformKind | undefined
  /** Sorted by `compareVersions`. */
  readonly versions: ReadonlyArray<string>
}

/** A platform with the content of every version that has a schema: what resolution reads. */
export interface PlatformData extends PlatformRecord, PlatformSnapshot {
  readonly schemas: ReadonlyMap<string, Schema.JsonObject>
}

/** One saved schema. */
export interface StoredSchema extends SchemaId {
  readonly content: Schema.JsonObject
  /** The `@extends` references as written. */
  readonly dependencies: ReadonlyArray<string>
  readonly output: Schema.JsonObject
  /** Platforms merged into `output`, sorted; `undefined` when unknown (saved before sources were recorded). */
  readonly sources: ReadonlyArray<string> | undefined
}

/** What `saveSchema` writes. */
export interface SchemaWrite extends SchemaId {
  readonly content: Schema.JsonObject
  readonly dependencies: ReadonlyArray<string>
  readonly output: Schema.JsonObject
  readonly sources: ReadonlyArray<string> | undefined
  /** Who saved it (an e-mail) and when (epoch milliseconds), for the revision. */
  readonly savedBy: string
  readonly savedAt: number
  /** For a restore, the revision whose content this saves again (rule 11). */
  readonly restoredFrom?: number | undefined
}

/** What a cascade writes for one re-resolved schema. */
export interface OutputWrite extends SchemaId {
  readonly output: Schema.JsonObject
  readonly sources: ReadonlyArray<string>
}

/** One save of a schema, as the history lists it: its number (from 1), who saved it and when. */
export interface RevisionSummary {
  readonly revision: number
  readonly savedBy: string
  readonly savedAt: number
  /** The revision a restore brought back; `undefined` for any other save (rule 11). */
  readonly restoredFrom?: number | undefined
}

/** One saved content of a schema, with the output that save produced: its history. */
export interface Revision extends RevisionSummary {
  readonly content: Schema.JsonObject
  /** `undefined` for revisions saved before outputs were kept with them. */
  readonly output: Schema.JsonObject | undefined
}

/** A saved schema as a platform's version list shows it: its `@extends` references and its last save. */
export interface SchemaSummary {
  /** The `@extends` references as written. */
  readonly dependencies: ReadonlyArray<string>
  /** The number of its latest revision (revisions are numbered from 1 without gaps: also how many there are). */
  readonly revision: number
  readonly savedBy: string
  readonly savedAt: number
}

/** One version of a platform, with its schema's summary, `undefined` when none is saved yet. */
export interface VersionSummary {
  readonly version: string
  readonly schema: SchemaSummary | undefined
}

/** A platform with a summary of every version (rule 12): what the dashboard's platform page shows. */
export interface PlatformOverview extends PlatformRecord {
  /** One per version, in `versions` order. */
  readonly summaries: ReadonlyArray<VersionSummary>
}

/** An API token record as the dashboard lists it (seed 000 §2); never the token itself. */
export interface TokenRecord {
  readonly id: string
  readonly name: string
  /** `null` reads every platform. */
  readonly platforms: ReadonlyArray<string> | null
  readonly hint: string
  readonly createdAt: number
  readonly createdBy: string
  readonly lastUsedAt: number | undefined
}

/** A token record with the SHA-256 (hex) of the plaintext, by which it is found. */
export interface StoredToken extends TokenRecord {
  readonly hash: string
}

export type AuditAction = "platform.delete" | "platform.kind" | "version.delete" | "token.create" | "token.revoke"

/** Who did what, when. `target` names the object (`ios`, `ios/1.0.0`, a token id); `detail` never holds a secret. */
export interface AuditEntry {
  readonly id: string
  readonly at: number
  readonly actor: string
  readonly action: AuditAction
  readonly target: string
  readonly detail: Readonly<Record<string, Schema.Json>> | undefined
}

/** Where a page of the audit log starts: strictly older than this entry. */
export interface AuditCursor {
  readonly at: number
  readonly id: string
}

export class SchemaStore extends Context.Service<
  SchemaStore,
  {
    /** Every platform, sorted by name. */
    readonly listPlatforms: Effect.Effect<ReadonlyArray<PlatformRecord>, StoreUnavailable>
    readonly findPlatform: (name: string) => Effect.Effect<PlatformRecord | undefined, StoreUnavailable>
    /** The named platforms that exist, with their contents, in a fixed number of round trips (rule 3). */
    readonly loadPlatforms: (
      names: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlyMap<string, PlatformData>, StoreUnavailable>
    /** The platform with a summary of each version's schema, in one round trip (rule 12). */
    readonly platformOverview: (name: string) => Effect.Effect<PlatformOverview | undefined, StoreUnavailable>
    /** The saved schema, or `undefined` when the version has none (or does not exist). */
    readonly findSchema: (id: SchemaId) => Effect.Effect<StoredSchema | undefined, StoreUnavailable>
    /** Every edge whose referenced platform is one of `platforms`, in a fixed number of round trips. */
    readonly dependentsOf: (
      platforms: ReadonlyArray<string>,
    ) => Effect.Effect<ReadonlyArray<DependencyEdge>, StoreUnavailable>
    /** Creates the platform with no versions; `false` when the name is taken. */
    readonly insertPlatform: (
      name: string,
      kind: PlatformKind | undefined,
      at: number,
    ) => Effect.Effect<boolean, StoreUnavailable>
    readonly setKind: (name: string, kind: PlatformKind) => Effect.Effect<void, StoreUnavailable>
    /** Adds the versions the platform does not list yet. */
    readonly insertVersions: (
      platform: string,
      versions: ReadonlyArray<string>,
      at: number,
    ) => Effect.Effect<void, StoreUnavailable>
    /** Removes versions with their schemas, revisions and the edges they hold (rule 6). */
    readonly removeVersions: (
      platform: string,
      versions: ReadonlyArray<string>,
    ) => Effect.Effect<void, StoreUnavailable>
    /** Removes the platform with everything of its versions, and from the tokens naming it, answered (rule 6). */
    readonly removePlatform: (name: string) => Effect.Effect<ReadonlyArray<StoredToken>, StoreUnavailable>
    readonly saveSchema: (write: SchemaWrite) => Effect.Effect<void, StoreUnavailable>
    readonly saveOutputs: (writes: ReadonlyArray<OutputWrite>) => Effect.Effect<void, StoreUnavailable>
    /** The schema's saved contents, oldest first. */
    readonly revisions: (id: SchemaId) => Effect.Effect<ReadonlyArray<Revision>, StoreUnavailable>
    /** A page of the schema's revisions, newest first, without contents (rule 11). */
    readonly listRevisions: (
      id: SchemaId,
      options: { readonly limit: number; readonly before?: number | undefined },
    ) => Effect.Effect<ReadonlyArray<RevisionSummary>, StoreUnavailable>
    /** One revision with its content and output (rule 11). */
    readonly findRevision: (id: SchemaId, revision: number) => Effect.Effect<Revision | undefined, StoreUnavailable>
    readonly insertToken: (token: StoredToken) => Effect.Effect<void, StoreUnavailable>
    /** Every token, oldest first. */
    readonly listTokens: Effect.Effect<ReadonlyArray<TokenRecord>, StoreUnavailable>
    readonly findTokenByHash: (hash: string) => Effect.Effect<StoredToken | undefined, StoreUnavailable>
    readonly removeToken: (id: string) => Effect.Effect<StoredToken | undefined, StoreUnavailable>
    readonly touchToken: (id: string, at: number) => Effect.Effect<void, StoreUnavailable>
    readonly appendAudit: (entry: AuditEntry) => Effect.Effect<void, StoreUnavailable>
    readonly listAudit: (options: {
      readonly limit: number
      readonly before?: AuditCursor | undefined
    }) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreUnavailable>
    /** Runs `effect` all or nothing, one writing transaction at a time (rule 7). */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  }
>()("@coffer/schemas/SchemaStore") {}
