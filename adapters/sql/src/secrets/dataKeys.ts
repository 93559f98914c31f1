/**
 * The data keys of projects on SQL (port rule 10; migration `0008_secrets_data_key_versions`): the current version
 * on the project row, older ones in `secrets_data_keys`, and the sealed values a data-key rotation re-seals.
 *
 * Every change is a compare-and-set on what was read: a master-key re-wrap replaces a wrap only if it is still the
 * expected text, wherever that version now lives; a new version is made current only if the current one is still
 * the expected version and wrap (the old one moves to `secrets_data_keys` in the same transaction); a re-sealed
 * value replaces only the exact value that was opened. So a rotation can run beside the service and beside another
 * rotation without overwriting anything written meanwhile. A rotation under way is a row of
 * `secrets_data_key_rotations` per project (migration `0015`), inserted only where none is.
 */
import type { SecretStore } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import { sql } from "kysely"
import type * as SqlStore from "../SqlStore.js"
import { changed } from "./rows.js"

export const dataKeys = (store: SqlStore.SqlStore): SecretStore.DataKeysPart => {
  const { query } = store
  return {
    listDataKeys: Effect.gen(function* () {
      const current = yield* query((db) =>
        db.selectFrom("secrets_projects").select(["id", "slug", "data_key", "data_key_version"]).execute(),
      )
      const older = yield* query((db) =>
        db
          .selectFrom("secrets_data_keys as d")
          .innerJoin("secrets_projects as p", "p.id", "d.project_id")
          .select(["d.project_id", "p.slug", "d.version", "d.data_key"])
          .execute(),
      )
      return [
        ...older.map((row) => ({
          projectId: row.project_id,
          slug: row.slug,
          version: Number(row.version),
          dataKey: row.data_key,
          current: false,
        })),
        ...current.map((row) => ({
          projectId: row.id,
          slug: row.slug,
          version: Number(row.data_key_version),
          dataKey: row.data_key,
          current: true,
        })),
      ]
    }),

    findDataKey: (projectId, version) =>
      query((db) =>
        db
          .selectFrom("secrets_projects as p")
          .leftJoin("secrets_data_keys as d", (join) =>
            join.onRef("d.project_id", "=", "p.id").on("d.version", "=", version),
          )
          .select(["p.data_key_version", "p.data_key", "d.data_key as older"])
          .where("p.id", "=", projectId)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((row) =>
          row === undefined
            ? undefined
            : Number(row.data_key_version) === version
              ? row.data_key
              : (row.older ?? undefined),
        ),
      ),

    replaceDataKey: ({ projectId, version, expected, next }) =>
      Effect.gen(function* () {
        const onProject = yield* query((db) =>
          db
            .updateTable("secrets_projects")
            .set({ data_key: next })
            .where("id", "=", projectId)
            .where("data_key_version", "=", version)
            .where("data_key", "=", expected)
            .executeTakeFirst(),
        )
        if (changed(onProject)) return true
        // Not (or no longer) the current version: it may be, or have just become, an older one.
        const older = yield* query((db) =>
          db
            .updateTable("secrets_data_keys")
            .set({ data_key: next })
            .where("project_id", "=", projectId)
            .where("version", "=", version)
            .where("data_key", "=", expected)
            .executeTakeFirst(),
        )
        return changed(older)
      }),

    addDataKey: ({ projectId, expectedVersion, dataKey }) =>
      store.transaction(
        Effect.gen(function* () {
          const project = yield* query((db) =>
            db
              .selectFrom("secrets_projects")
              .select(["data_key", "data_key_version"])
              .where("id", "=", projectId)
              .executeTakeFirst(),
          )
          if (project === undefined || Number(project.data_key_version) !== expectedVersion) return false
          // The compare-and-set: a concurrent rotation or re-wrap of this project makes it change nothing.
          const moved = yield* query((db) =>
            db
              .updateTable("secrets_projects")
              .set({ data_key: dataKey, data_key_version: expectedVersion + 1 })
              .where("id", "=", projectId)
              .where("data_key_version", "=", expectedVersion)
              .where("data_key", "=", project.data_key)
              .executeTakeFirst(),
          )
          if (!changed(moved)) return false
          yield* query((db) =>
            db
              .insertInto("secrets_data_keys")
              .values({ project_id: projectId, version: expectedVersion, data_key: project.data_key })
              .execute(),
          )
          return true
        }),
      ),

    markDataKeyRotations: (marks) =>
      store.transaction(
        Effect.gen(function* () {
          // A mark already there is kept, and only a project that exists gets one: `insert … select … on conflict`.
          for (const { projectId, fromVersion } of marks) {
            yield* query((db) =>
              db
                .insertInto("secrets_data_key_rotations")
                .columns(["project_id", "from_version"])
                .expression((eb) =>
                  eb
                    .selectFrom("secrets_projects")
                    .select([
                      sql<string>`cast(${projectId} as text)`.as("project_id"),
                      sql<number>`cast(${fromVersion} as integer)`.as("from_version"),
                    ])
                    .where("id", "=", projectId),
                )
                .onConflict((conflict) => conflict.column("project_id").doNothing())
                .execute(),
            )
          }
          // The table holds only rotations under way: read whole, not by a list of ids as long as the projects.
          const stored = yield* query((db) =>
            db.selectFrom("secrets_data_key_rotations").select(["project_id", "from_version"]).execute(),
          )
          const asked = new Set(marks.map((mark) => mark.projectId))
          return new Map(
            stored.filter((row) => asked.has(row.project_id)).map((row) => [row.project_id, Number(row.from_version)]),
          )
        }),
      ),

    endDataKeyRotations: (projectIds) =>
      store.transaction(
        Effect.forEach(
          projectIds,
          (projectId) =>
            query((db) => db.deleteFrom("secrets_data_key_rotations").where("project_id", "=", projectId).execute()),
          { discard: true },
        ),
      ),

    listSealedValues: ({ projectId, except, after, limit }) =>
      query((db) => {
        let select = db
          .selectFrom("secrets_secret_versions as v")
          .innerJoin("secrets_secrets as s", "s.id", "v.secret_id")
          .innerJoin("secrets_environments as e", "e.id", "s.environment_id")
          .select(["v.secret_id", "s.environment_id", "s.key", "v.version", "v.value"])
          .where("e.project_id", "=", projectId)
          // A prefix test without `like`, whose wildcards the prefix would have to escape.
          .where(sql<string>`substr(v.value, 1, ${except.length})`, "<>", except)
        if (after !== undefined) {
          select = select.where((eb) =>
            eb.or([
              eb("v.secret_id", ">", after.secretId),
              eb.and([eb("v.secret_id", "=", after.secretId), eb("v.version", ">", after.version)]),
            ]),
          )
        }
        return select.orderBy("v.secret_id").orderBy("v.version").limit(limit).execute()
      }).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            secretId: row.secret_id,
            environmentId: row.environment_id,
            key: row.key,
            version: Number(row.version),
            value: row.value,
          })),
        ),
      ),

    replaceSealedValues: (replacements) =>
      store.transaction(
        Effect.reduce(
          replacements,
          () => 0,
          (replaced, { secretId, version, expected, next }) =>
            query((db) =>
              db
                .updateTable("secrets_secret_versions")
                .set({ value: next })
                .where("secret_id", "=", secretId)
                .where("version", "=", version)
                .where("value", "=", expected)
                .executeTakeFirst(),
            ).pipe(Effect.map((result) => replaced + (changed(result) ? 1 : 0))),
        ),
      ),
  }
}
