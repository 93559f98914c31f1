/**
 * SchemaStore rule 11, part of the SchemaStore contract (`schemaStore.ts` registers it for every adapter): each
 * save keeps its content and the output it produced, `listRevisions` pages newest first without contents and
 * `findRevision` answers one revision whole; a cascade's outputs never rewrite a revision; a restore's revision
 * names the one it brought back.
 */
import type { SchemaId, SchemaStore, SchemaWrite } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"

type Store = SchemaStore["Service"]

const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

const write = (id: SchemaId, n: number): SchemaWrite => ({
  ...id,
  content: { n, "@extends": "base" },
  dependencies: ["base"],
  output: { n, merged: true },
  sources: ["base", id.platform],
  savedBy: `user${n}@example.com`,
  savedAt: T0 + n,
})

export const revisionSuite = (run: <A, E>(test: (store: Store) => Effect.Effect<A, E>) => Promise<A>) =>
  describe("revisions (rule 11)", () => {
    const id = { platform: "ios", version: "1.0.0+build.7" }

    const seeded = (store: Store, saves: number) =>
      Effect.gen(function* () {
        yield* store.insertPlatform("ios", undefined, T0)
        yield* store.insertVersions("ios", [id.version, "2.0.0"], T0)
        for (let n = 1; n <= saves; n++) yield* store.saveSchema(write(id, n))
      })

    it("pages revisions newest first, without contents, `before` excluding that one and newer", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store, 5)
          expect(yield* store.listRevisions(id, { limit: 10 })).toEqual(
            [5, 4, 3, 2, 1].map((n) => ({ revision: n, savedBy: `user${n}@example.com`, savedAt: T0 + n })),
          )
          expect((yield* store.listRevisions(id, { limit: 2 })).map((entry) => entry.revision)).toEqual([5, 4])
          expect((yield* store.listRevisions(id, { limit: 2, before: 4 })).map((entry) => entry.revision)).toEqual([
            3, 2,
          ])
          expect((yield* store.listRevisions(id, { limit: 2, before: 2 })).map((entry) => entry.revision)).toEqual([1])
          expect(yield* store.listRevisions(id, { limit: 2, before: 1 })).toEqual([])
          // Any whole number may be asked for, past what a database column holds too.
          for (const before of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
            expect((yield* store.listRevisions(id, { limit: 2, before })).map((entry) => entry.revision)).toEqual([
              5, 4,
            ])
          }
          expect((yield* store.listRevisions(id, { limit: 2, before: 99 })).map((entry) => entry.revision)).toEqual([
            5, 4,
          ])
          expect(yield* store.listRevisions({ platform: "ios", version: "2.0.0" }, { limit: 10 })).toEqual([])
          expect(yield* store.listRevisions({ platform: "nope", version: "1.0.0" }, { limit: 10 })).toEqual([])
        }),
      ))

    it("finds one revision with its content and the output its save produced; a cascade leaves it alone", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store, 3)
          yield* store.saveOutputs([{ ...id, output: { cascaded: true }, sources: ["ios"] }])
          expect((yield* store.findSchema(id))?.output).toEqual({ cascaded: true })
          expect(yield* store.findRevision(id, 2)).toEqual({
            revision: 2,
            content: { n: 2, "@extends": "base" },
            output: { n: 2, merged: true },
            savedBy: "user2@example.com",
            savedAt: T0 + 2,
          })
          expect((yield* store.findRevision(id, 3))?.output).toEqual({ n: 3, merged: true })
          expect(yield* store.findRevision(id, 4)).toBeUndefined()
          expect(yield* store.findRevision(id, 0)).toBeUndefined()
          for (const revision of [2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
            expect(yield* store.findRevision(id, revision)).toBeUndefined()
          }
          expect(yield* store.findRevision({ platform: "ios", version: "2.0.0" }, 1)).toBeUndefined()
          // What a caller does with what it received never reaches the store.
          const found = yield* store.findRevision(id, 1)
          ;(found!.content as Record<string, unknown>).n = 99
          expect((yield* store.findRevision(id, 1))?.content).toEqual({ n: 1, "@extends": "base" })
        }),
      ))

    it("keeps the revision a restore brought back, in every read; any other save has none", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store, 2)
          yield* store.saveSchema({ ...write(id, 1), savedAt: T0 + 3, restoredFrom: 1 })
          yield* store.saveSchema({ ...write(id, 4), restoredFrom: undefined })
          expect(yield* store.listRevisions(id, { limit: 10 })).toEqual([
            { revision: 4, savedBy: "user4@example.com", savedAt: T0 + 4 },
            { revision: 3, savedBy: "user1@example.com", savedAt: T0 + 3, restoredFrom: 1 },
            { revision: 2, savedBy: "user2@example.com", savedAt: T0 + 2 },
            { revision: 1, savedBy: "user1@example.com", savedAt: T0 + 1 },
          ])
          expect(yield* store.findRevision(id, 3)).toEqual({
            revision: 3,
            content: { n: 1, "@extends": "base" },
            output: { n: 1, merged: true },
            savedBy: "user1@example.com",
            savedAt: T0 + 3,
            restoredFrom: 1,
          })
          expect((yield* store.revisions(id)).map((revision) => revision.restoredFrom)).toEqual([
            undefined,
            undefined,
            1,
            undefined,
          ])
        }),
      ))

    it("goes with its version", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store, 2)
          yield* store.removeVersions("ios", [id.version])
          yield* store.insertVersions("ios", [id.version], T0)
          expect(yield* store.listRevisions(id, { limit: 10 })).toEqual([])
          expect(yield* store.findRevision(id, 1)).toBeUndefined()
        }),
      ))
  })
