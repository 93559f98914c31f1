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
