import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { descendantsOf, exists, signalEach } from "./processTree.js"

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("descendantsOf", () => {
  it("lists the processes below a process, its children's children included, and none below a leaf", async () => {
    // The shells fork (`; true` keeps each from replacing itself), so the tree is sh → sh → sleep.
    const root = spawn("sh", ["-c", "sh -c 'sleep 30; true'; true"], { stdio: "ignore" })
    try {
      let below: ReadonlyArray<number> = []
      for (let attempt = 0; attempt < 100 && below.length < 2; attempt++) {
        await pause(20)
        below = descendantsOf(root.pid!)
      }
      expect(below).toHaveLength(2)
      expect(descendantsOf(below[1]!)).toEqual([])
      expect(below.every(exists)).toBe(true)
      // Ended with the signal, the shells' children are gone too, though their parents never passed it on.
      signalEach([root.pid!, ...below], "SIGTERM")
      for (let attempt = 0; attempt < 100 && below.some(exists); attempt++) await pause(20)
      expect(below.filter(exists)).toEqual([])
    } finally {
      root.kill("SIGKILL")
    }
  })
})

describe("exists", () => {
  it("takes a zombie, ended but not reaped, for ended", async () => {
    // The shell forks `true` and then sleeps without reaping it (`exec` keeps it the parent, and sleep never waits).
    const root = spawn("sh", ["-c", "true & exec sleep 30"], { stdio: "ignore" })
    try {
      let below: ReadonlyArray<number> = []
      for (let attempt = 0; attempt < 100 && below.length === 0; attempt++) {
        await pause(20)
        below = descendantsOf(root.pid!)
      }
      expect(below).toHaveLength(1)
      expect(exists(root.pid!)).toBe(true)
      for (let attempt = 0; attempt < 100 && exists(below[0]!); attempt++) await pause(20)
      expect(exists(below[0]!)).toBe(false)
      // Still in the process table: a check by signal alone would take it for running.
      expect(() => process.kill(below[0]!, 0)).not.toThrow()
    } finally {
      root.kill("SIGKILL")
    }
  })
})
