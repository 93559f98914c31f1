/**
 * The Schemas core in a plain program, with no HTTP: two platforms, a base schema and a schema that extends it
 * with `@extends`, the resolved output, the cascade that re-resolves the child when the base changes, and the
 * refusal of a cycle. The use cases run on a `ManagedRuntime` built from the in-memory adapters, exactly as a
 * host runs them behind its routes; only the transport is missing.
 *
 * Run it: `pnpm --filter @coffer/example-schemas-core start` (after `pnpm build`), or through its test.
 */
import { pathToFileURL } from "node:url"
import { MemoryCache, MemorySchemaStore } from "@coffer/adapter-memory"
import { Clock, Random } from "@coffer/kernel"
import { type Access, Platforms, Schemas } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"

/** Everything the use cases ask for: storage, a cache for resolved reads, the time and randomness. */
const layer = Layer.mergeAll(MemorySchemaStore.layer, MemoryCache.layer, Clock.layer, Random.layer)

/**
 * Use cases check every change against an actor. Over HTTP it comes from a session and the roles settings; a
 * program that owns its data acts as an administrator of its own.
 */
const operator: Access.Person = {
  _tag: "Person",
  email: "build@example.com",
  canWrite: () => true,
  canManage: true,
}

const ios = { platform: "ios", version: "2.0.0" }
const base = { platform: "base", version: "1.1.0" }

const program = (print: (line: string) => void) =>
  Effect.gen(function* () {
    yield* Platforms.putPlatform(operator, "base", { name: "base", versions: ["1.0.0", "1.1.0"] })
    yield* Platforms.putPlatform(operator, "ios", { name: "ios", versions: ["2.0.0"] })

    yield* Schemas.saveSchema(operator, base, { theme: { color: "red", size: 12 }, features: ["login"] })
    // `^1.0.0` selects the highest 1.x version of base: 1.1.0. The child's keys win; its arrays replace.
    const saved = yield* Schemas.saveSchema(operator, ios, {
      "@extends": "base/^1.0.0",
      theme: { color: "blue" },
      features: ["login", "share"],
    })
    print(`saved ios/2.0.0, extending ${saved.schema.dependencies.join(", ")}`)

    const resolved = yield* Schemas.readSchema(operator, ios)
    print(`ios/2.0.0 resolves to ${JSON.stringify(resolved.output)}`)

    // Changing the base re-resolves everything that extends it, in the same transaction.
    const changed = yield* Schemas.saveSchema(operator, base, {
      theme: { color: "red", size: 14 },
      features: ["login"],
    })
    print(`saved base/1.1.0, re-resolved ${changed.reprocessed.join(", ")}`)
    const after = yield* Schemas.readSchema(operator, ios)
    print(`ios/2.0.0 now resolves to ${JSON.stringify(after.output)}`)

    // A base that extends its own child would never resolve: the save is refused and nothing changes.
    const cycle = yield* Effect.flip(Schemas.saveSchema(operator, base, { "@extends": "ios/2.0.0" }))
    print(`refused: ${cycle.message}`)
  })

/** Runs the example, printing one line per step. */
export const main = async (print: (line: string) => void = console.log): Promise<void> => {
  const runtime = ManagedRuntime.make(layer)
  try {
    await runtime.runPromise(program(print))
  } finally {
    await runtime.dispose()
  }
}

// Run when started as a program (`node dist/main.js`), not when a test imports `main`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
