/** `makeBatchedMget` over a recording MGET: one command per turn, each call answered with its own keys' values. */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { type Mget, makeBatchedMget } from "./batchedMget.js"

/** An MGET over `store` that records every command it is given. */
const recording = (store: Record<string, string>) => {
  const sent: Array<Array<string>> = []
  const mget: Mget = async (keys) => {
    sent.push(keys)
    return keys.map((key) => store[key] ?? null)
  }
  return { sent, mget }
}

const failure = (cause: unknown) => ({ _tag: "Unavailable" as const, cause })

describe("makeBatchedMget", () => {
  it("sends the calls of one turn as one MGET of their distinct keys and answers each with its own", async () => {
    const { sent, mget } = recording({ a: "1", b: "2", generation: "7" })
    const getMany = makeBatchedMget(mget, failure)
    const answers = await Effect.runPromise(
      Effect.all([getMany(["a", "generation"]), getMany(["b", "generation"]), getMany(["missing", "a"]), getMany([])], {
        concurrency: "unbounded",
      }),
    )
    expect(answers).toEqual([["1", "7"], ["2", "7"], [undefined, "1"], []])
    expect(sent).toEqual([["a", "generation", "b", "missing"]])
  })

  it("sends one MGET per turn", async () => {
    const { sent, mget } = recording({ a: "1" })
    const getMany = makeBatchedMget(mget, failure)
    expect(await Effect.runPromise(getMany(["a"]))).toEqual(["1"])
    expect(await Effect.runPromise(getMany(["a", "b"]))).toEqual(["1", undefined])
    expect(sent).toEqual([["a"], ["a", "b"]])
  })

  it("fails every call of the turn when the MGET fails, whether it rejects or throws", async () => {
    for (const mget of [
      (() => Promise.reject(new Error("connection lost"))) as Mget,
      (() => {
        throw new Error("connection lost")
      }) as Mget,
    ]) {
      const getMany = makeBatchedMget(mget, failure)
      const outcomes = await Effect.runPromise(
        Effect.all([Effect.flip(getMany(["a"])), Effect.flip(getMany(["b"]))], { concurrency: "unbounded" }),
      )
      for (const outcome of outcomes) {
        expect(outcome._tag).toBe("Unavailable")
        expect((outcome.cause as Error).message).toBe("connection lost")
      }
    }
  })
})
