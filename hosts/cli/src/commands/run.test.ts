/**
 * `secrets run --only`: which keys reach the child; a list that names no key is refused, never read as "all". A
 * value no environment can carry is refused by its key.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import { describe, expect, it, vi } from "vitest"
import { runCli } from "../main.js"
import { checkEnvironment, onlyKeys, pick } from "./run.js"

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

describe("the child's environment", () => {
  it("refuses a value holding NUL by its key, never quoting the value", async () => {
    const server = createServer((_request, response) => {
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ OK: "1", BINARY: "s3cr3t\0tail" }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
      said += String(text)
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const code = await runCli(["secrets", "run", "-p", "app", "-e", "dev", "--", "true"], {
      env: {
        COFFER_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        COFFER_TOKEN: `cfk_${"s".repeat(43)}`,
      },
    }).finally(() => {
      stderr.mockRestore()
      server.close()
    })
    expect([code, said]).toEqual([
      1,
      "coffer: BINARY: a value holding a NUL character cannot be put in a process environment (leave it out with --only)\n",
    ])
    expect(await Effect.runPromise(checkEnvironment({ OK: "1", EMPTY: "" }))).toBeUndefined()
  })
})
