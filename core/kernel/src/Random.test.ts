import { Effect } from "effect"
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
