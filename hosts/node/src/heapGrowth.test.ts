import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { limitHeapGrowth, parseOldGenerationGrowthPercent, parseYoungGenerationMb, type V8Heap } from "./heapGrowth.js"

const MB = 1024 * 1024

/** A heap that grows as V8 does when much survives: by the growth factor in force, at each collection. */
const fakeHeap = (startMb = 2, maxMb = 32) => {
  let size = startMb * MB
  let factor = 2
  const observers = new Set<() => void>()
  const timers = new Set<() => void>()
  const flags: Array<string> = []
  const factors: Array<number> = []
  const heap: V8Heap = {
    youngGenerationSize: () => size,
    setFlag: (flag) => {
      flags.push(flag)
      const growth = /^--semi-space-growth-factor=(\d+)$/.exec(flag)
      if (growth === null) return
      factor = Number(growth[1])
      factors.push(factor)
    },
    afterGc: (run) => {
      observers.add(run)
      return () => observers.delete(run)
    },
    every: (_ms, run) => {
      timers.add(run)
      return () => timers.delete(run)
    },
  }
  return {
    heap,
    flags,
    factors,
    sizeMb: () => size / MB,
    /** A scavenge after which V8 grows the young generation, then the observers' turn. */
    growingGc: () => {
      size = Math.min(maxMb * MB, size * factor)
      for (const run of observers) run()
    },
    /** V8 shrinking the young generation when allocation slows. */
    shrink: (mb: number) => {
      size = mb * MB
      for (const run of observers) run()
    },
    /** A second passing. */
    tick: () => {
      for (const run of [...timers]) run()
    },
    /** How the size is watched: `gc` (after each collection), `timer`, both or neither. */
    watching: () => [observers.size > 0 ? "gc" : "", timers.size > 0 ? "timer" : ""].filter(Boolean).join("+"),
  }
}

describe("limitHeapGrowth", () => {
  it("holds the young generation while the host starts, then lets it grow to the setting and no further", () => {
    const v8 = fakeHeap()
    const limit = limitHeapGrowth({ COFFER_YOUNG_GENERATION_MB: "8" }, v8.heap)
    for (let i = 0; i < 5; i++) v8.growingGc()
    expect(v8.sizeMb()).toBe(2)
    limit.started()
    expect(v8.watching()).toBe("gc")
    for (let i = 0; i < 5; i++) v8.growingGc()
    expect(v8.sizeMb()).toBe(8)
    // Held, it can only shrink: a timer looks, and no collection pays for an observer.
    expect(v8.watching()).toBe("timer")
    // Shrunk by V8 below the setting, it may grow again once the timer sees it, to the setting.
    v8.shrink(2)
    v8.tick()
    expect(v8.watching()).toBe("gc")
    for (let i = 0; i < 5; i++) v8.growingGc()
    expect(v8.sizeMb()).toBe(8)
    expect(v8.watching()).toBe("timer")
    limit.stop()
    expect(v8.watching()).toBe("")
    for (let i = 0; i < 5; i++) v8.growingGc()
    expect(v8.sizeMb()).toBe(32)
  })

  it("holds from the first collection when the setting is the starting size", () => {
    const v8 = fakeHeap()
    const limit = limitHeapGrowth({ COFFER_YOUNG_GENERATION_MB: "2" }, v8.heap)
    limit.started()
    for (let i = 0; i < 5; i++) v8.growingGc()
    expect(v8.sizeMb()).toBe(2)
    limit.stop()
  })

  it("defaults to 16 MB, and leaves V8 alone at 0 or with a setting the settings check refuses", () => {
    const byDefault = fakeHeap()
    const limit = limitHeapGrowth({}, byDefault.heap)
    limit.started()
    for (let i = 0; i < 5; i++) byDefault.growingGc()
    expect(byDefault.sizeMb()).toBe(16)
    limit.stop()
    for (const setting of ["0", "1", "8MB", "-4"]) {
      const v8 = fakeHeap()
      limitHeapGrowth({ COFFER_YOUNG_GENERATION_MB: setting }, v8.heap).started()
      for (let i = 0; i < 5; i++) v8.growingGc()
      expect(v8.factors).toEqual([])
      expect(v8.sizeMb()).toBe(32)
    }
  })

  it("fixes the old generation's growth at 100% by default, at the setting, or leaves V8's own at 0", () => {
    const growthFlags = (env: Record<string, string>) => {
      const v8 = fakeHeap()
      limitHeapGrowth(env, v8.heap)
      return v8.flags.filter((flag) => flag.startsWith("--heap-growing-percent"))
    }
    expect(growthFlags({})).toEqual(["--heap-growing-percent=100"])
    expect(growthFlags({ COFFER_OLD_GENERATION_GROWTH_PERCENT: "50" })).toEqual(["--heap-growing-percent=50"])
    expect(growthFlags({ COFFER_OLD_GENERATION_GROWTH_PERCENT: "0" })).toEqual([])
    expect(growthFlags({ COFFER_OLD_GENERATION_GROWTH_PERCENT: "half" })).toEqual([])
  })

  it("reads the settings as the settings check does", () => {
    expect(parseOldGenerationGrowthPercent("0")).toBe(0)
    expect(parseOldGenerationGrowthPercent("100")).toBe(100)
    expect(parseOldGenerationGrowthPercent("1000")).toBe(1000)
    expect(parseOldGenerationGrowthPercent("1001")).toBeUndefined()
    expect(parseOldGenerationGrowthPercent("-5")).toBeUndefined()
    expect(parseYoungGenerationMb("0")).toBe(0)
    expect(parseYoungGenerationMb("2")).toBe(2)
    expect(parseYoungGenerationMb("64")).toBe(64)
    expect(parseYoungGenerationMb("1")).toBeUndefined()
    expect(parseYoungGenerationMb("8.5")).toBeUndefined()
    expect(parseYoungGenerationMb("")).toBeUndefined()
  })

  it("rests on V8 reading its growth factor at every step: in a fresh Node process, 1 holds the young generation", () => {
    // What `v8Heap.setGrowth(1)` does, in a fresh process: the flag is process-wide, and the test runner's own young
    // generation has long grown. Should a V8 upgrade read the flag only at start, this fails, not the host silently.
    const program = (hold: boolean) => `
      import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"
      ${hold ? `setFlagsFromString("--semi-space-growth-factor=1")` : ""}
      // Objects that survive several scavenges, as a start-up's modules and closures do.
      const kept = []
      for (let i = 0; i < 400_000; i++) kept.push({ i, text: "x" + i })
      console.log(getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size)
    `
    const newSpace = (hold: boolean) =>
      Number(execFileSync(process.execPath, ["--input-type=module", "-e", program(hold)], { encoding: "utf8" }).trim())
    expect(newSpace(false)).toBeGreaterThan(4 * MB)
    expect(newSpace(true)).toBeLessThanOrEqual(2 * MB)
  })

  it("rests on V8 reading its heap growing factor whenever it sets the limit: in a fresh process, 100% keeps its peak well below V8's own", () => {
    // A live set, then batches that live long enough to be promoted and are then dropped, as an export's rows are.
    const program = (percent: number | undefined) => `
      import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"
      ${percent === undefined ? "" : `setFlagsFromString("--heap-growing-percent=${percent}")`}
      const old = () => getHeapSpaceStatistics().find((space) => space.space_name === "old_space").space_size
      const live = Array.from({ length: 200_000 }, (_, i) => ({ i, text: "live" + i }))
      const recent = []
      let peak = 0
      for (let round = 0; round < 60; round++) {
        recent.push(Array.from({ length: 50_000 }, (_, i) => ({ i, text: "batch" + i + round })))
        if (recent.length > 4) recent.shift()
        peak = Math.max(peak, old())
      }
      console.log(live.length > 0 ? peak : 0)
    `
    const peak = (percent: number | undefined) =>
      Number(
        execFileSync(process.execPath, ["--input-type=module", "-e", program(percent)], { encoding: "utf8" }).trim(),
      )
    expect(peak(100)).toBeLessThan(peak(undefined) * 0.75)
  })
})
