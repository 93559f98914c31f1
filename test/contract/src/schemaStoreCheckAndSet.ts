/**
 * A save that names the revision it was edited from (`expectedRevision`), part of the SchemaStore contract
 * (`schemaStore.ts` registers it for every adapter). The use case reads the latest revision inside the writing
 * transaction and writes only on top of the expected one; that is sound only if the read cannot be overtaken by a
 * save committing in between, which rules 7 (writing transactions do not interleave) and 11 (revisions numbered
 * without gaps) promise together. So this checks them together on the store, then the use case itself over it:
 * of concurrent saves expecting one revision exactly one lands, and a refused save changes nothing.
 */
import { MemoryCache } from "@coffer/adapter-memory"
import { Clock, Random } from "@coffer/kernel"
import {
  type Access,
  type SchemaId,
  SchemaSavedMeanwhile,
  SchemaStore,
  Schemas,
  type SchemaWrite,
} from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"

type Store = SchemaStore["Service"]

const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

const editor: Access.Person = {
  _tag: "Person",
  email: "editor@example.com",
  canWrite: () => true,
  canManage: false,
}

const write = (id: SchemaId, n: number): SchemaWrite => ({
  ...id,
  content: { n },
  dependencies: [],
  output: { n },
  sources: [id.platform],
  savedBy: "ada@example.com",
  savedAt: T0 + n,
})

/** The outcome of a save: the revision it stored, or the revision a refusal reported. */
const outcome = (save: Effect.Effect<{ readonly revision: number }, unknown, never>) =>
  save.pipe(
    Effect.map((saved) => ({ landed: saved.revision })),
    Effect.catch((error) =>
      error instanceof SchemaSavedMeanwhile ? Effect.succeed({ refused: error.revision }) : Effect.fail(error),
    ),
  )

export const checkAndSetSuite = (run: <A, E>(test: (store: Store) => Effect.Effect<A, E>) => Promise<A>) =>
  describe("check-and-set saves (rules 7 and 11, and the use case over them)", () => {
    const id = { platform: "ios", version: "1.0.0" }
    const child = { platform: "app", version: "1.0.0" }

    /** What the use case needs besides the store; nothing in it decides anything about saves. */
    const services = (store: Store) =>
      Layer.mergeAll(Layer.succeed(SchemaStore, store), MemoryCache.layer, Clock.layer, Random.layer)

    const save = (store: Store, target: SchemaId, content: unknown, expectedRevision?: number) =>
      Schemas.saveSchema(editor, target, content, { expectedRevision }).pipe(Effect.provide(services(store)))

    /** `ios/1.0.0` saved once, and `app/1.0.0` extending it, so that a save also cascades. */
    const seeded = (store: Store) =>
      Effect.gen(function* () {
        yield* store.insertPlatform("ios", undefined, T0)
        yield* store.insertVersions("ios", [id.version], T0)
        yield* store.insertPlatform("app", undefined, T0)
        yield* store.insertVersions("app", [child.version], T0)
        yield* save(store, id, { n: 1 })
        yield* save(store, child, { "@extends": "ios/1.0.0", own: true })
      })

    /** Everything a save could change, for "nothing changed" comparisons. */
    const state = (store: Store) =>
      Effect.all({
        schema: store.findSchema(id),
        revisions: store.revisions(id),
        dependent: store.findSchema(child),
        dependentRevisions: store.revisions(child),
        audit: store.listAudit({ limit: 100 }),
      })

    it("reads, in a writing transaction, the latest revision that no other save can overtake", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* store.insertPlatform("ios", undefined, T0)
          yield* store.insertVersions("ios", [id.version], T0)
          yield* store.saveSchema(write(id, 1))
          // Each reads the latest revision, waits, and saves only on top of revision 1: interleaved, all would save.
          const saveOnTopOfOne = (n: number) =>
            store.transaction(
              Effect.gen(function* () {
                const [latest] = yield* store.listRevisions(id, { limit: 1 })
                yield* Effect.sleep("30 millis")
                if (latest?.revision !== 1) return false
                yield* store.saveSchema(write(id, n))
                return true
              }),
            )
          const saved = yield* Effect.all([saveOnTopOfOne(2), saveOnTopOfOne(3), saveOnTopOfOne(4)], {
            concurrency: "unbounded",
          })
          expect(saved.filter(Boolean)).toHaveLength(1)
          expect((yield* store.revisions(id)).map((revision) => revision.revision)).toEqual([1, 2])
        }),
      ))

    it("saves on top of the expected revision and answers the revision it stored", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store)
          const saved = yield* save(store, id, { n: 2 }, 1)
          expect(saved.revision).toBe(2)
          expect((yield* store.findSchema(id))?.content).toEqual({ n: 2 })
          expect((yield* store.findSchema(child))?.output).toEqual({ n: 2, own: true })
          expect((yield* save(store, id, { n: 3 }, 2)).revision).toBe(3)
          // Expecting nothing saved yet, on a version with nothing saved.
          yield* store.insertVersions("ios", ["2.0.0"], T0)
          expect((yield* save(store, { platform: "ios", version: "2.0.0" }, { fresh: true }, 0)).revision).toBe(1)
        }),
      ))

    it("refuses a stale expectation, or 0 on a saved schema, and changes nothing", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store)
          yield* save(store, id, { n: 2 })
          const before = yield* state(store)
          for (const stale of [1, 0, 3, 99]) {
            const error = yield* Effect.flip(save(store, id, { n: "lost" }, stale))
            expect(error).toBeInstanceOf(SchemaSavedMeanwhile)
            expect(error).toMatchObject({ expectedRevision: stale, revision: 2 })
          }
          expect(yield* state(store)).toEqual(before)
          expect(before.dependent?.output).toEqual({ n: 2, own: true })
        }),
      ))

    it("of concurrent saves expecting one revision, exactly one lands; the others learn the revision it stored", () =>
      run((store) =>
        Effect.gen(function* () {
          yield* seeded(store)
          for (let round = 1; round <= 3; round++) {
            const saves = [1, 2, 3, 4].map((writer) => outcome(save(store, id, { round, writer }, round)))
            const outcomes = yield* Effect.all(saves, { concurrency: "unbounded" })
            const landed = outcomes.filter((each) => "landed" in each)
            expect(landed).toEqual([{ landed: round + 1 }])
            expect(outcomes.filter((each) => "refused" in each)).toEqual([1, 2, 3].map(() => ({ refused: round + 1 })))
            const winner = outcomes.indexOf(landed[0]!) + 1
            expect((yield* store.findSchema(id))?.content).toEqual({ round, writer: winner })
            expect((yield* store.findSchema(child))?.output).toEqual({ round, writer: winner, own: true })
          }
          expect((yield* store.revisions(id)).map((revision) => revision.revision)).toEqual([1, 2, 3, 4])
        }),
      ))
  })
