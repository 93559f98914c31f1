import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import * as Hasher from "./Hasher.js"
import * as Random from "./Random.js"

describe("Random", () => {
  it("makes prefixed 256-bit credentials that never repeat", async () => {
    const tokens = await Effect.runPromise(
      Effect.all(Array.from({ length: 50 }, () => Random.Random.use((r) => r.token("cfs_")))).pipe(
        Effect.provide(Random.layer),
      ),
    )
    for (const token of tokens) expect(token).toMatch(/^cfs_[A-Za-z0-9_-]{43}$/)
    expect(new Set(tokens).size).toBe(tokens.length)
  })

  it("serves bytes from a page without repeating them, across page ends and for large draws", () => {
    // Sizes that do not divide the page, so draws straddle its end; 5,000 bytes bypass the page.
    const draws = Array.from({ length: 3_000 }, (_, i) => Random.randomBytes([16, 24, 32, 7, 5_000][i % 5]!))
    expect(draws.map((bytes) => bytes.length).slice(0, 5)).toEqual([16, 24, 32, 7, 5_000])
    const hex = draws.map((bytes) => Buffer.from(bytes).toString("hex"))
    expect(new Set(hex).size).toBe(draws.length)
    // Fresh arrays: zeroing one (as callers do with keys) leaves the others alone.
    draws[0]!.fill(0)
    expect(draws[5]!.some((byte) => byte !== 0)).toBe(true)
    // Not a page of zeros served after a refill: every 32-byte draw has set bits.
    expect(draws.filter((bytes) => bytes.length === 32).every((bytes) => bytes.some((byte) => byte !== 0))).toBe(true)
  })
})

describe("Hasher", () => {
  it("hashes with SHA-256", async () => {
    const hex = await Effect.runPromise(Hasher.Hasher.use((h) => h.sha256Hex("abc")).pipe(Effect.provide(Hasher.layer)))
    expect(hex).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("compares in constant time and gets equality right", () => {
    expect(Hasher.timingSafeEqual("same", "same")).toBe(true)
    expect(Hasher.timingSafeEqual("same", "sane")).toBe(false)
    expect(Hasher.timingSafeEqual("short", "longer")).toBe(false)
    expect(Hasher.timingSafeEqual("", "")).toBe(true)
    expect(Hasher.timingSafeEqual("", "x")).toBe(false)
  })
})
