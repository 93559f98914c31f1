import { Hasher } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { NodeHasher } from "./index.js"

const both = <A>(use: (hasher: Hasher.Hasher["Service"]) => Effect.Effect<A>) =>
  Promise.all([
    Effect.runPromise(Hasher.Hasher.use(use).pipe(Effect.provide(NodeHasher.layer))),
    Effect.runPromise(Hasher.Hasher.use(use).pipe(Effect.provide(Hasher.layer))),
  ])

describe("NodeHasher", () => {
  it("hashes as Web Crypto does, text and bytes, and synchronously", async () => {
    // The SHA-256 test vector of "abc" (FIPS 180-2).
    const [node, web] = await both((hasher) => hasher.sha256Hex("abc"))
    expect(node).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(web).toBe(node)
    const bytes = new Uint8Array([0, 1, 2, 255])
    const [nodeBytes, webBytes] = await both((hasher) => hasher.sha256(bytes))
    expect(nodeBytes).toEqual(webBytes)
    // Hex straight from node:crypto: bytes as bytes, text as its UTF-8.
    const [nodeHex, webHex] = await both((hasher) => hasher.sha256Hex(bytes))
    expect(nodeHex).toBe(webHex)
    const [nodeText, webText] = await both((hasher) => hasher.sha256Hex("é€🔑"))
    expect(nodeText).toBe(webText)
    // Runs without any asynchronous step: `runSync` would throw on one.
    expect(
      Effect.runSync(Hasher.Hasher.use((hasher) => hasher.sha256Hex("")).pipe(Effect.provide(NodeHasher.layer))),
    ).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  })
})
