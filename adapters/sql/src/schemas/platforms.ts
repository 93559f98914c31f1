/**
 * Platforms and their versions, on SQL: the lists, the batched loads resolution reads (port rule 3), and the
 * writes that add and remove them. Lists are sorted in JavaScript with the domain's order (`sortVersions`,
 * code-unit order for names), so both dialects answer alike whatever the database's collation.
 */

import { fromIso, toIso } from "@coffer/kernel"
import type { PlatformData, SchemaStore, SchemaSummary } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as SqlStore from "../SqlStore.js"
import type { SchemasVersionRow } from "../tables/schemas.js"
import { chunks, eachChunk } from "./chunks.js"
import { byName, json, parseList, parseObject, recordOf, tokenOf } from "./rows.js"
import type { Writing } from "./writing.js"

export type PlatformsPart = Pick<
  SchemaStore["Service"],
  | "listPlatforms"
  | "findPlatform"
  | "platformOverview"
  | "loadPlatforms"
  | "insertPlatform"
  | "setKind"
  | "insertVersions"
  | "removeVersions"
  | "removePlatform"
>

/** Groups rows by their platform, once: filtering the rows per platform would cost platforms × rows. */
const groupByPlatform = <Row extends { readonly platform: string }>(rows: ReadonlyArray<Row>) => {
  const byPlatform = new Map<string, Array<Row>>()
  for (const row of rows) {
    const list = byPlatform.get(row.platform)
    if (list === undefined) byPlatform.set(row.platform, [row])
    else list.push(row)
  }
  return byPlatform
}

const versionsOf = (rows: ReadonlyArray<{ readonly version: string }> | undefined) =>
  (rows ?? []).map((row) => row.version)

export const platforms = ({ query }: SqlStore.SqlStore, transaction: Writing): PlatformsPart => {
  /** Rows of `schemas_versions` of the named platforms, with or without their content, in chunks. */
  const versionRows = (names: ReadonlyArray<string>, withContent: boolean) =>
    Effect.map(
      eachChunk(names, (chunk) =>
        query((db) =>
          db
            .selectFrom("schemas_versions")
            .select(["platform", "version", ...(withContent ? (["content"] as const) : [])])
            .where("platform", "in", chunk)
            .execute(),
        ),
      ),
      (parts) => parts.flat() as ReadonlyArray<Pick<SchemasVersionRow, "platform" | "version" | "content">>,
    )

  const platformRows = (names: ReadonlyArray<string>) =>
    Effect.map(
      eachChunk(names, (chunk) =>
        query((db) => db.selectFrom("schemas_platforms").select(["name", "kind"]).where("name", "in", chunk).execute()),
      ),
      (parts) => parts.flat(),
    )

  return {
    listPlatforms: Effect.gen(function* () {
      const platforms = yield* query((db) => db.selectFrom("schemas_platforms").select(["name", "kind"]).execute())
      const versions = groupByPlatform(
        yield* query((db) => db.selectFrom("schemas_versions").select(["platform", "version"]).execute()),
      )
      return platforms
        .map((row) => recordOf(row.name, row.kind, versionsOf(versions.get(row.name))))
        .sort((a, b) => byName(a.name, b.name))
    }),
    findPlatform: (name) =>
      Effect.gen(function* () {
        const [platform] = yield* platformRows([name])
        if (platform === undefined) return undefined
        const versions = yield* versionRows([name], false)
        return recordOf(platform.name, platform.kind, versionsOf(versions))
      }),
    // One statement (port rule 12): the platform joined to its versions, each with its latest revision's number
    // from the `(platform, version, revision)` key, and no content read.
    platformOverview: (name) =>
      query((db) =>
        db
          .selectFrom("schemas_platforms as p")
          .leftJoin("schemas_versions as v", "v.platform", "p.name")
          .select((eb) => [
            "p.name",
            "p.kind",
            "v.version",
            "v.dependencies",
            "v.saved_at",
            "v.saved_by",
            eb("v.content", "is not", null).as("saved"),
            eb
              .selectFrom("schemas_revisions as r")
              .select((r) => r.fn.max("r.revision").as("revision"))
              .whereRef("r.platform", "=", "v.platform")
              .whereRef("r.version", "=", "v.version")
              .as("revision"),
          ])
          .where("p.name", "=", name)
          .execute(),
      ).pipe(
        Effect.map((rows) => {
          const [first] = rows
          if (first === undefined) return undefined
          const schemas = new Map<string, SchemaSummary | undefined>()
          for (const row of rows) {
            if (row.version === null) continue // the platform's one row when it has no versions
            // SQLite answers the comparison as 0 or 1, Postgres as a boolean.
            const saved = Boolean(row.saved) && row.saved_at !== null && row.saved_by !== null
            schemas.set(
              row.version,
              saved
                ? {
                    dependencies: row.dependencies === null ? [] : parseList(row.dependencies),
                    revision: Number(row.revision ?? 0),
                    savedBy: row.saved_by!,
                    savedAt: fromIso(row.saved_at!),
                  }
                : undefined,
            )
          }
          const record = recordOf(first.name, first.kind, [...schemas.keys()])
          return {
            ...record,
            summaries: record.versions.map((version) => ({ version, schema: schemas.get(version) })),
          }
        }),
      ),
    // Chunk by chunk (two statements each), so the parsing of one chunk's contents is followed by a yield too.
    loadPlatforms: (names) =>
      Effect.gen(function* () {
        const found = new Map<string, PlatformData>()
        yield* eachChunk([...new Set(names)], (chunk) =>
          Effect.gen(function* () {
            const platforms = yield* platformRows(chunk)
            if (platforms.length === 0) return
            const rows = groupByPlatform(
              yield* versionRows(
                platforms.map((platform) => platform.name),
                true,
              ),
            )
            for (const platform of platforms) {
              const own = rows.get(platform.name) ?? []
              const schemas = new Map<string, Schema.JsonObject>()
              for (const row of own) if (row.content !== null) schemas.set(row.version, parseObject(row.content))
              found.set(platform.name, { ...recordOf(platform.name, platform.kind, versionsOf(own)), schemas })
            }
          }),
        )
        return found
      }),
    insertPlatform: (name, kind, at) =>
      query((db) =>
        db
          .insertInto("schemas_platforms")
          .values({ name, kind: kind ?? null, created_at: toIso(at) })
          .onConflict((conflict) => conflict.column("name").doNothing())
          .executeTakeFirst(),
      ).pipe(Effect.map((result) => Number(result.numInsertedOrUpdatedRows ?? 0) > 0)),
    setKind: (name, kind) =>
      query((db) => db.updateTable("schemas_platforms").set({ kind }).where("name", "=", name).execute()).pipe(
        Effect.asVoid,
      ),
    insertVersions: (platform, versions, at) =>
      versions.length === 0
        ? Effect.void
        : query((db) =>
            db
              .insertInto("schemas_versions")
              .values(versions.map((version) => ({ platform, version, created_at: toIso(at) })))
              .onConflict((conflict) => conflict.columns(["platform", "version"]).doNothing())
              .execute(),
          ).pipe(Effect.asVoid),
    removeVersions: (platform, versions) =>
      Effect.forEach(
        chunks(versions),
        (chunk) =>
          query((db) =>
            db.deleteFrom("schemas_versions").where("platform", "=", platform).where("version", "in", chunk).execute(),
          ),
        { discard: true },
      ),
    removePlatform: (name) =>
      transaction(
        Effect.gen(function* () {
          yield* query((db) => db.deleteFrom("schemas_platforms").where("name", "=", name).execute())
          // A list is JSON text: `like` finds the few that may name it (it may find more: the match is checked
          // here), and each one changed is written on its own, since each becomes a different list.
          const rows = yield* query((db) =>
            db
              .selectFrom("schemas_tokens")
              .selectAll()
              .where("platforms", "like", `%${json([name]).slice(1, -1)}%`)
              .execute(),
          )
          const narrowed = rows
            .map(tokenOf)
            .filter((token) => token.platforms?.includes(name) === true)
            .map((token) => ({ ...token, platforms: token.platforms!.filter((platform) => platform !== name) }))
          for (const token of narrowed) {
            yield* query((db) =>
              db
                .updateTable("schemas_tokens")
                .set({ platforms: json(token.platforms) })
                .where("id", "=", token.id)
                .execute(),
            )
          }
          return narrowed
        }),
      ),
  }
}
