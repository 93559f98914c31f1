/** `secrets run --only`: which keys reach the child; a list that names no key is refused, never read as "all". */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { runCli } from "../main.js"
import { onlyKeys, pick } from "./run.js"

const values = { A: "1", B: "2", C: "3" }

describe("--only", () => {
  it("trims names, splits on commas, and passes those keys only", async () => {
    const wanted = await Effect.runPromise(onlyKeys([" A", "B , C,"]))
    expect(wanted).toEqual(["A", "B", "C"])
    expect(await Effect.runPromise(pick(values, wanted))).toEqual(values)
    expect(await Effect.runPromise(pick(values, ["A"]))).toEqual({ A: "1" })
    expect(await Effect.runPromise(pick(values, undefined))).toEqual(values)
    expect(await Effect.runPromise(onlyKeys([]))).toBeUndefined()
  })

  it.each([[[""]], [[","]], [[" , "]], [["", ""]]])("refuses %j as a usage error", async (only) => {
    const failure = await Effect.runPromise(Effect.flip(onlyKeys(only)))
    expect(failure.kind).toBe("usage")
  })

  it("fails with 1 before any request when --only names no key", async () => {
    const code = await runCli(["secrets", "run", "--only", "", "--", "true"], {
      env: { COFFER_URL: "http://127.0.0.1:9", COFFER_TOKEN: `cfk_${"s".repeat(43)}`, COFFER_ENVIRONMENT: "dev" },
    })
    expect(code).toBe(1)
  })
})
