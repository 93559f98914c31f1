/**
 * Schemas, their dependency edges and revisions, on SQL. A save replaces the schema's edges with exactly those its
 * `@extends` list yields and appends one revision, in one writing transaction (port rule 4); a cascade's outputs
 * go in batched statements without revisions.
 */

import { toIso } from "@coffer/kernel"
import { type DependencyEdge, dependencyEdges, type SchemaStore } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import { sql } from "kysely"
import { MAX_INTEGER } from "../integerColumn.js"
import type * as SqlStore from "../SqlStore.js"
import { chunks, eachChunk, OUTPUT_CHUNK } from "./chunks.js"
import { json, parseList, parseObject, revisionOf, sortedDistinct, summaryOf } from "./rows.js"
import type { Writing } from "./writing.js"

export type SchemasPart = Pick<
  SchemaStore["Service"],
  "findSchema" | "dependentsOf" | "saveSchema" | "saveOutputs" | "revisions" | "listRevisions" | "findRevision"
>

export const schemas = ({ query }: SqlStore.SqlStore, transaction: Writing): SchemasPart => {
  const replaceEdges = (platform: string, version: string, dependencies: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      yield* query((db) =>
        db
          .deleteFrom("schemas_dependencies")
          .where("dependent_platform", "=", platform)
          .where("dependent_version", "=", version)
          .execute(),
      )
      // Positions come from the dependencies as written, so a reference that does not parse leaves a gap.
      const edges = dependencies.flatMap((reference, position) =>
        dependencyEdges({ platform, version }, [reference]).map((edge) => ({
          dependent_platform: platform,
          dependent_version: version,
          position,
          platform: edge.platform,
          reference: edge.reference,
        })),
      )
      if (edges.length > 0) yield* query((db) => db.insertInto("schemas_dependencies").values(edges).execute())
    })

  return {
    findSchema: (id) =>
      query((db) =>
        db
          .selectFrom("schemas_versions")
          .select(["content", "dependencies", "output", "sources"])
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((row) =>
          row?.content == null
            ? undefined
            : {
                ...id,
                content: parseObject(row.content),
                dependencies: row.dependencies === null ? [] : parseList(row.dependencies),
                output: row.output === null ? {} : parseObject(row.output),
                sources: row.sources === null ? undefined : parseList(row.sources),
              },
        ),
      ),
    dependentsOf: (platforms) =>
      Effect.map(
        eachChunk([...new Set(platforms)], (chunk) =>
          query((db) =>
            db
              .selectFrom("schemas_dependencies")
              .selectAll()
              .where("platform", "in", chunk)
              .orderBy("dependent_platform")
              .orderBy("dependent_version")
              .orderBy("position")
              .execute(),
          ),
        ),
        (parts) =>
          parts.flat().map(
            (row): DependencyEdge => ({
              dependent: { platform: row.dependent_platform, version: row.dependent_version },
              platform: row.platform,
              reference: row.reference,
            }),
          ),
      ),
    saveSchema: (write) =>
      transaction(
        Effect.gen(function* () {
          const updated = yield* query((db) =>
            db
              .updateTable("schemas_versions")
              .set({
                content: json(write.content),
                dependencies: json(write.dependencies),
                output: json(write.output),
                sources: write.sources === undefined ? null : json(sortedDistinct(write.sources)),
                saved_at: toIso(write.savedAt),
                saved_by: write.savedBy,
              })
              .where("platform", "=", write.platform)
              .where("version", "=", write.version)
              .executeTakeFirst(),
          )
          if (Number(updated.numUpdatedRows) === 0) return
          yield* replaceEdges(write.platform, write.version, write.dependencies)
          const last = yield* query((db) =>
            db
              .selectFrom("schemas_revisions")
              .select((eb) => eb.fn.max("revision").as("revision"))
              .where("platform", "=", write.platform)
              .where("version", "=", write.version)
              .executeTakeFirst(),
          )
          yield* query((db) =>
            db
              .insertInto("schemas_revisions")
              .values({
                platform: write.platform,
                version: write.version,
                revision: Number(last?.revision ?? 0) + 1,
                content: json(write.content),
                output: json(write.output),
                saved_at: toIso(write.savedAt),
                saved_by: write.savedBy,
                restored_from: write.restoredFrom ?? null,
              })
              .execute(),
          )
        }),
      ),
    // A cascade writes thousands of outputs: one statement per chunk of rows (an update joined to a VALUES
    // list, which both dialects accept), not one per row, with a yield to the event loop between chunks.
    saveOutputs: (writes) =>
      writes.length === 0
        ? Effect.void
        : transaction(
            Effect.forEach(
              chunks(writes, OUTPUT_CHUNK),
              (chunk) =>
                query((db) =>
                  sql`with changed (platform, version, output, sources) as (values ${sql.join(
                    chunk.map(
                      (write) =>
                        sql`(${write.platform}, ${write.version}, ${json(write.output)}, ${json(sortedDistinct(write.sources))})`,
                    ),
                  )})
                  update schemas_versions set output = changed.output, sources = changed.sources
                  from changed
                  where schemas_versions.platform = changed.platform
                    and schemas_versions.version = changed.version
                    and schemas_versions.content is not null`.execute(db),
                ).pipe(Effect.andThen(Effect.yieldNow)),
              { discard: true },
            ),
          ),
    revisions: (id) =>
      query((db) =>
        db
          .selectFrom("schemas_revisions")
          .selectAll()
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          .orderBy("revision")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(revisionOf))),
    listRevisions: (id, { limit, before }) =>
      query((db) =>
        db
          .selectFrom("schemas_revisions")
          .select(["revision", "saved_at", "saved_by", "restored_from"])
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          // Every stored revision is below a bound past the column's range (Postgres refuses it as a parameter).
          .$if(before !== undefined && before <= MAX_INTEGER, (select) => select.where("revision", "<", before!))
          .orderBy("revision", "desc")
          .limit(limit)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(summaryOf))),
    findRevision: (id, revision) =>
      // No stored revision is past the column's range, which Postgres refuses as a parameter.
      revision > MAX_INTEGER
        ? Effect.succeed(undefined)
        : query((db) =>
            db
              .selectFrom("schemas_revisions")
              .selectAll()
              .where("platform", "=", id.platform)
              .where("version", "=", id.version)
              .where("revision", "=", revision)
              .executeTakeFirst(),
          ).pipe(Effect.map((row) => (row === undefined ? undefined : revisionOf(row)))),
  }
}
