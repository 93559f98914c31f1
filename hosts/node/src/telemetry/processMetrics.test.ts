/** The event-loop delay the `coffer_process_event_loop_delay_seconds` gauges report. */
import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { startMonitor } from "./processMetrics.js"

describe("the event-loop delay monitor", () => {
  it("reads an idle loop as on time, not as late by its own sampling interval", async () => {
    const monitor = startMonitor()
    try {
      await sleep(400)
      // Node's histogram records the whole interval between its samples (10 ms), so an idle process read 0.010 s.
      expect(monitor.read().p50).toBeLessThan(0.005)
    } finally {
      monitor.stop()
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
