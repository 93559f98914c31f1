/**
 * The master key check at start when two instances start at once on a database without canary: whichever canary
 * is stored, the one sealed here or the other instance's, must open under this instance's key, or the start fails.
 * The cipher is a stand-in whose `rewrap` opens only what "this key" sealed: the check is about the order of reads
 * and writes, not about encryption (the Cipher contract covers that).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as Cipher from "./Cipher.js"
import { atStart, KeyCanary } from "./MasterKeyCheck.js"

const MINE = "mine:"

const cipher = Layer.succeed(Cipher.Cipher)({
  wrappedPrefixes: [MINE],
  newDataKey: Effect.succeed(`${MINE}canary`),
  rewrap: (wrapped: string) =>
    wrapped.startsWith(MINE)
      ? Effect.succeed(wrapped)
      : Effect.fail(new Cipher.CipherError({ message: "not sealed under this key" })),
} as unknown as Cipher.Cipher["Service"])

/** A canary store that is empty at the first read and holds `sealedMeanwhile` from the second on. */
const racedBy = (sealedMeanwhile: string, created: Array<string>) =>
  Layer.sync(KeyCanary)(() => {
    let reads = 0
    return {
      read: Effect.sync(() => {
        reads++
        return reads === 1 ? undefined : sealedMeanwhile
      }),
      // The other instance's canary is stored by then: an insert keeps it.
      create: (canary: string) =>
        Effect.sync(() => {
          created.push(canary)
          return sealedMeanwhile
        }),
      replace: () => Effect.succeed(false),
      anyDataKey: Effect.succeed(undefined),
      projectWrappedElsewhere: () => Effect.succeed(undefined),
    }
  })

const start = (sealedMeanwhile: string, created: Array<string>) =>
  Effect.runPromiseExit(atStart.pipe(Effect.provide(Layer.merge(cipher, racedBy(sealedMeanwhile, created)))))

describe("MasterKeyCheck.atStart, racing another instance", () => {
  it("fails when the other instance sealed the canary under another key after this one looked", async () => {
    const created: Array<string> = []
    const exit = await start("theirs:canary", created)
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("MasterKeyMismatch")
    expect(created).toEqual([])
  })

  it("starts when the canary sealed meanwhile opens under this key, and seals none of its own", async () => {
    const created: Array<string> = []
    expect(Exit.isSuccess(await start(`${MINE}theirs`, created))).toBe(true)
    expect(created).toEqual([])
  })
})

describe("MasterKeyCheck.atStart, a project's data key wrapped elsewhere", () => {
  /** A store whose canary opens, and in which `elsewhere` (a slug) has a data key under none of the prefixes asked. */
  const store = (elsewhere: string | undefined, asked: Array<ReadonlyArray<string>>) =>
    Layer.succeed(KeyCanary)({
      read: Effect.succeed(`${MINE}canary`),
      create: (canary: string) => Effect.succeed(canary),
      replace: () => Effect.succeed(false),
      anyDataKey: Effect.succeed(undefined),
      projectWrappedElsewhere: (prefixes: ReadonlyArray<string>) =>
        Effect.sync(() => {
          asked.push(prefixes)
          return elsewhere
        }),
    })

  it("fails naming the project, though the canary opens; asks with the keyring's prefixes", async () => {
    const asked: Array<ReadonlyArray<string>> = []
    const exit = await Effect.runPromiseExit(atStart.pipe(Effect.provide(Layer.merge(cipher, store("shop", asked)))))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain(
      "the data key of project shop is wrapped by a master key that neither COFFER_MASTER_KEY nor COFFER_MASTER_KEY_PREVIOUS holds",
    )
    expect(asked).toEqual([[MINE]])
    const none = await Effect.runPromiseExit(atStart.pipe(Effect.provide(Layer.merge(cipher, store(undefined, [])))))
    expect(Exit.isSuccess(none)).toBe(true)
  })
})
