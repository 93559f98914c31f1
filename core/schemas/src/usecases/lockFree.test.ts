/**
 * Saves that can never succeed are refused before the write lock: while another writer holds it, a save over a
 * resolution limit, a cycle or a missing reference still answers at once instead of queueing behind it.
 */

import { admin, editor, makeEnvironment } from "@coffer/test-kit/schemas"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { afterEach, describe, expect, it } from "vitest"
import * as Platforms from "./platforms.js"
import * as Schemas from "./schemas.js"

const environments: Array<ReturnType<typeof makeEnvironment>> = []
afterEach(async () => {
  await Promise.all(environments.splice(0).map((env) => env.dispose()))
})

describe("refusals before the write lock", () => {
  it("answers while another transaction holds the lock, and the valid save waits for it", async () => {
    const env = makeEnvironment()
    environments.push(env)
    await env.run(
      Effect.forEach(["a", "b", "app"], (name) => Platforms.putPlatform(admin, name, { name, versions: ["1.0.0"] }), {
        discard: true,
      }),
    )
    await env.run(Schemas.saveSchema(editor, { platform: "b", version: "1.0.0" }, { "@extends": "a/1.0.0" }))
    const outcome = await env.run(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const entered = yield* Deferred.make<void>()
        const holder = yield* Effect.forkChild(
          env.store.transaction(Effect.andThen(Deferred.succeed(entered, undefined), Deferred.await(gate))),
        )
        yield* Deferred.await(entered)
        const refuse = (platform: string, content: unknown) =>
          Schemas.saveSchema(editor, { platform, version: "1.0.0" }, content).pipe(
            Effect.flip,
            Effect.map((error) => error._tag),
            Effect.timeout("2 seconds"),
          )
        const refused = [
          yield* refuse("a", { "@extends": "b/1.0.0" }),
          yield* refuse("app", { "@extends": "missing/1.0.0" }),
          yield* refuse("app", { "@extends": ["a", "a"] }),
        ]
        // A save that can succeed queues behind the holder.
        const valid = yield* Effect.forkChild(
          Schemas.saveSchema(editor, { platform: "app", version: "1.0.0" }, { "@extends": "b/1.0.0" }),
        )
        const waited = yield* Fiber.join(valid).pipe(Effect.timeoutOption("100 millis"))
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(holder)
        const saved = yield* Fiber.join(valid)
        return { refused, waited: waited._tag, reprocessed: saved.reprocessed }
      }),
    )
    expect(outcome).toEqual({
      refused: ["CircularDependency", "Unresolved", "ResolutionLimit"],
      waited: "None",
      reprocessed: [],
    })
  })
})
