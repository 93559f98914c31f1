import { describe, expect, it } from "vitest"
import { timeLeft } from "./keyExpiry.js"

describe("an API key's time left", () => {
  it("is said in the largest whole unit, never as nothing", () => {
    const minute = 60_000
    expect(
      [10 * 24 * 60, 7 * 24 * 60, 24 * 60 + 59, 24 * 60 - 1, 60, 59, 1, 0.2].map((m) => timeLeft(m * minute)),
    ).toEqual(["10 days", "7 days", "1 day", "23 hours", "1 hour", "59 minutes", "1 minute", "1 minute"])
  })
})
