/**
 * What `secrets run --watch` counts as a change: a key's id or version in the list, then values that differ from
 * those the command runs with. A look that fails is said once and the looks go on.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { afterEach, describe, expect, it, vi } from "vitest"
import { changedKeys, fingerprint, nextChange, type Values } from "./secretChanges.js"
import type { SecretItem } from "./secretsApi.js"

const item = (key: string, version: number, id = `id-${key}`): SecretItem => ({
  id,
  key,
  version,
  createdAt: "2026-11-28T00:00:00.000Z",
  updatedAt: "2026-11-28T00:00:00.000Z",
})

describe("fingerprint", () => {
  it("moves with a version or an id of a wanted key, whatever the order of the list", () => {
    const list = [item("A", 1), item("B", 1)]
    expect(fingerprint(list, undefined)).toBe(fingerprint([...list].reverse(), undefined))
    expect(fingerprint([item("A", 2), item("B", 1)], undefined)).not.toBe(fingerprint(list, undefined))
    // Deleted and written again up to the same version: a new id.
    expect(fingerprint([item("A", 1, "other"), item("B", 1)], undefined)).not.toBe(fingerprint(list, undefined))
    expect(fingerprint([item("A", 1)], undefined)).not.toBe(fingerprint(list, undefined))
    // `--only A`: B is not looked at.
    expect(fingerprint([item("A", 1), item("B", 9)], ["A"])).toBe(fingerprint(list, ["A"]))
  })
})

describe("changedKeys", () => {
  it("names changed, added and removed keys, sorted, and nothing for equal values", () => {
    expect(changedKeys({ A: "1", B: "2", C: "3" }, { A: "1", B: "two", D: "4" })).toEqual(["B", "C", "D"])
    expect(changedKeys({ A: "1", E: "" }, { E: "", A: "1" })).toEqual([])
    expect(changedKeys({ A: "" }, {})).toEqual(["A"])
  })
})

describe("nextChange", () => {
  const servers: Array<() => void> = []
  afterEach(() => {
    for (const close of servers.splice(0)) close()
    vi.restoreAllMocks()
  })

  it("reads values only when the list moved, says once that it cannot look, and answers the first real change", async () => {
    // What the list answers at each look: the same list, a failing service twice, a write that put back the same
    // value, then a change.
    const answers: Array<number | ReadonlyArray<SecretItem>> = [
      [item("A", 1)],
      503,
      503,
      [item("A", 2)],
      [item("A", 3)],
    ]
    let looks = 0
    const server = createServer((_request, response) => {
      const answer = answers[Math.min(looks++, answers.length - 1)]!
      response.setHeader("content-type", "application/json")
      response.statusCode = typeof answer === "number" ? answer : 200
      response.end(JSON.stringify(typeof answer === "number" ? { error: "Service unavailable" } : { secrets: answer }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    servers.push(() => server.close())
    let said = ""
    vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
      said += String(text)
      rest.find((argument) => typeof argument === "function")?.()
      return true
    })
    const reads: Array<Values> = [{ A: "1" }, { A: "new" }]
    let read = 0
    const target = {
      endpoint: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: `cfk_${"s".repeat(43)}` },
      project: "app",
      environment: "dev",
    }
    const change = await Effect.runPromise(
      nextChange(
        {
          target: Effect.succeed(target),
          wanted: undefined,
          intervalSeconds: 1,
          read: Effect.sync(() => ({ values: reads[read++]!, leftOut: [] })),
          program: "server",
        },
        { A: "1" },
        Option.some(fingerprint([item("A", 1)], undefined)),
      ),
    )
    expect(change).toEqual({
      values: { A: "new" },
      leftOut: [],
      keys: ["A"],
      known: Option.some(fingerprint([item("A", 3)], undefined)),
    })
    expect([looks, read]).toEqual([5, 2])
    expect(said.split("\n").filter((line) => line !== "")).toEqual([
      expect.stringMatching(/^coffer: cannot check for changes: .*; server keeps its values$/),
      "coffer: checking for changes again",
    ])
  }, 15_000)
})
