import { describe, expect, it } from "vitest"
import { afterSaves, whileSaving } from "./savesUnderWay.js"

const deferred = <T>() => {
  let resolve!: (value: T) => void
  let reject!: (cause: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Whether `promise` has settled once pending callbacks ran. */
const settledYet = async (promise: Promise<unknown>) => {
  let done = false
  void promise.then(
    () => {
      done = true
    },
    () => {
      done = true
    },
  )
  await new Promise((resolve) => setTimeout(resolve, 0))
  return done
}

describe("saves under way", () => {
  it("makes a read wait for the save of the same schema, and only that one", async () => {
    const save = deferred<string>()
    const returned = whileSaving("a/1.0.0", save.promise)
    expect(returned).toBe(save.promise)
    const waiting = afterSaves("a/1.0.0")
    expect(await settledYet(waiting)).toBe(false)
    expect(await settledYet(afterSaves("b/1.0.0"))).toBe(true)
    save.resolve("saved")
    expect(await settledYet(waiting)).toBe(true)
    expect(await settledYet(afterSaves("a/1.0.0"))).toBe(true)
  })

  it("lets the read go on after a refused save, without the refusal", async () => {
    const save = deferred<string>()
    whileSaving("a/2.0.0", save.promise).catch(() => undefined)
    const waiting = afterSaves("a/2.0.0")
    save.reject(new Error("refused"))
    await expect(waiting).resolves.toBeUndefined()
  })

  it("keeps the later of two saves under way when the earlier settles", async () => {
    const first = deferred<string>()
    const second = deferred<string>()
    whileSaving("a/3.0.0", first.promise)
    whileSaving("a/3.0.0", second.promise)
    first.resolve("one")
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(await settledYet(afterSaves("a/3.0.0"))).toBe(false)
    second.resolve("two")
    expect(await settledYet(afterSaves("a/3.0.0"))).toBe(true)
  })
})
