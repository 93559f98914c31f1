/** The fallback snapshot opens only with the key that sealed it, and holds no value in the clear. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { exitStatus } from "./child.js"
import { planPush } from "./secretsPlan.js"
import { loadSnapshot, saveSnapshot } from "./snapshot.js"

const KEY = `cfk_${"k".repeat(43)}`
const snapshot = {
  url: "http://127.0.0.1:8788",
  project: "app",
  environment: "production",
  savedAt: "2026-11-22T00:00:00.000Z",
  values: { DB_PASSWORD: "hunter2-secret" },
}

describe("snapshot", () => {
  it("is written 0600 without the values in the clear, and opens with the same key only", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "coffer-snap-")), "snap")
    await Effect.runPromise(saveSnapshot(file, KEY, snapshot))
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, "utf8")).not.toContain("hunter2")
    expect(await Effect.runPromise(loadSnapshot(file, KEY))).toEqual(snapshot)
    const wrong = await Effect.runPromiseExit(loadSnapshot(file, `cfk_${"x".repeat(43)}`))
    expect(Exit.isFailure(wrong)).toBe(true)
  })

  it("refuses a snapshot relabelled as another environment", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "coffer-snap-")), "snap")
    await Effect.runPromise(saveSnapshot(file, KEY, snapshot))
    const moved = JSON.parse(readFileSync(file, "utf8"))
    writeFileSync(file, JSON.stringify({ ...moved, environment: "staging" }))
    expect(Exit.isFailure(await Effect.runPromiseExit(loadSnapshot(file, KEY)))).toBe(true)
  })
})

describe("push plan and child status", () => {
  it("adds, changes and (with prune) deletes by key", () => {
    const current = { SAME: "1", OLD: "x", GONE: "y" }
    const wanted = new Map([
      ["SAME", "1"],
      ["OLD", "z"],
      ["NEW", ""],
    ])
    expect(planPush(current, wanted, false)).toEqual({ add: ["NEW"], change: ["OLD"], remove: [] })
    expect(planPush(current, wanted, true).remove).toEqual(["GONE"])
  })

  it("reports a signal as 128 + its number, as shells do", () => {
    expect(exitStatus(3, null)).toBe(3)
    expect(exitStatus(null, "SIGTERM")).toBe(143)
    expect(exitStatus(null, "SIGINT")).toBe(130)
    expect(exitStatus(null, "SIGHUP")).toBe(129)
  })
})
