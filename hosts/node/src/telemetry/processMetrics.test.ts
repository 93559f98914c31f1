/** The event-loop delay the `coffer_process_event_loop_delay_seconds` gauges report. */
import { monitorEventLoopDelay } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { startMonitor } from "./processMetrics.js"

describe("the event-loop delay monitor", () => {
  it("reads the loop as late by less than Node's own histogram, which counts its 10 ms sampling interval", async () => {
    // Beside a bare histogram on the same loop, so that a busy machine delaying both timers alike cannot fail the
    // test: only the interval taken off tells the two apart (about 10 ms; nothing without it).
    const raw = monitorEventLoopDelay({ resolution: 10 })
    raw.enable()
    const monitor = startMonitor()
    try {
      await sleep(500)
      const bare = raw.percentile(50) / 1e9
      expect(bare).toBeGreaterThanOrEqual(0.01)
      expect(bare - monitor.read().p50).toBeGreaterThan(0.005)
    } finally {
      monitor.stop()
      raw.disable()
    }
  })

  it("still reads a blocked loop as late by about the time it was blocked", async () => {
    const monitor = startMonitor()
    try {
      await sleep(50)
      const until = performance.now() + 120
      while (performance.now() < until) {}
      await sleep(50)
      expect(monitor.read().max).toBeGreaterThan(0.1)
    } finally {
      monitor.stop()
    }
  })
})
