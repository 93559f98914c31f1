/**
 * SchemaStore rule 12, part of the SchemaStore contract (`schemaStore.ts` registers it for every adapter): a
 * platform's overview lists every version in order with its schema's summary (references as written, latest
 * revision, last save) or none, and follows saves and deletions.
 */
import type { SchemaId, SchemaStore, SchemaWrite } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"

type Store = SchemaStore["Service"]

const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

const write = (id: SchemaId, dependencies: ReadonlyArray<string>, n: number): SchemaWrite => ({
  ...id,
  content: { n, ...(dependencies.length === 0 ? {} : { "@extends": [...dependencies] }) },
  dependencies,
  output: { n },
  sources: [id.platform],
  savedBy: `user${n}@example.com`,
  savedAt: T0 + n,
})

export const overviewSuite = (run: <A, E>(test: (store: Store) => Effect.Effect<A, E>) => Promise<A>) =>
  describe("platform overview (rule 12)", () => {
    it("summarises each version in order: references as written, latest revision and last save, or no schema", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.insertPlatform("base", undefined, T0)
          yield* store.insertVersions("base", ["1.0.0"], T0)
          yield* store.insertPlatform("ios", "ios", T0)
          yield* store.insertVersions("ios", ["2.0.0", "1.0.0+build.7", "1.0.0", "10.0.0-rc.1"], T0)
          const id = { platform: "ios", version: "1.0.0+build.7" }
          yield* store.saveSchema(write(id, ["base/1.0.0"], 1))
          yield* store.saveSchema(write(id, ["base/^1.0.0", "base"], 2))
          yield* store.saveSchema(write({ platform: "ios", version: "2.0.0" }, [], 3))
          expect(yield* store.platformOverview("ios")).toEqual({
            name: "ios",
            kind: "ios",
            versions: ["1.0.0", "1.0.0+build.7", "2.0.0", "10.0.0-rc.1"],
            summaries: [
              { version: "1.0.0", schema: undefined },
              {
                version: "1.0.0+build.7",
                schema: {
                  dependencies: ["base/^1.0.0", "base"],
                  revision: 2,
                  savedBy: "user2@example.com",
                  savedAt: T0 + 2,
                },
              },
              {
                version: "2.0.0",
                schema: { dependencies: [], revision: 1, savedBy: "user3@example.com", savedAt: T0 + 3 },
              },
              { version: "10.0.0-rc.1", schema: undefined },
            ],
          })
        }),
      ))

    it("answers a platform without versions, and nothing for a missing one", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.insertPlatform("empty", undefined, T0)
          expect(yield* store.platformOverview("empty")).toEqual({
            name: "empty",
            kind: undefined,
            versions: [],
            summaries: [],
          })
          expect(yield* store.platformOverview("nope")).toBeUndefined()
          // A name the platform rules refuse is simply absent (SQL looks it up like any other).
          expect(yield* store.platformOverview("EMPTY")).toBeUndefined()
        }),
      ))

    it("follows a removed version: re-added, it has no schema and its history starts again", () =>
      run((store) =>
        Effect.gen(function* () {
          const id = { platform: "ios", version: "1.0.0" }
          yield* store.insertPlatform("ios", undefined, T0)
          yield* store.insertVersions("ios", ["1.0.0", "2.0.0"], T0)
          yield* store.saveSchema(write(id, [], 1))
          yield* store.saveSchema(write(id, [], 2))
          yield* store.removeVersions("ios", ["2.0.0"])
          expect((yield* store.platformOverview("ios"))?.summaries.map((summary) => summary.version)).toEqual(["1.0.0"])
          yield* store.removeVersions("ios", ["1.0.0"])
          yield* store.insertVersions("ios", ["1.0.0"], T0)
          expect((yield* store.platformOverview("ios"))?.summaries).toEqual([{ version: "1.0.0", schema: undefined }])
          yield* store.saveSchema(write(id, ["base"], 3))
          expect((yield* store.platformOverview("ios"))?.summaries).toEqual([
            {
              version: "1.0.0",
              schema: { dependencies: ["base"], revision: 1, savedBy: "user3@example.com", savedAt: T0 + 3 },
            },
          ])
        }),
      ))
  })
