/**
 * The native cipher against `@noble/ciphers`: on Node it must be chosen, and seal and open exactly as the
 * pure-JavaScript cipher does, so that values stored by either open with the other.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Native from "./NodeXChaCha20Poly1305.js"
import { primitives as noble } from "./XChaCha20Poly1305.js"

const native = Native.primitives!

describe("NodeXChaCha20Poly1305", () => {
  it("is chosen on Node", () => {
    expect(Native.primitives).toBeDefined()
    expect(native.nonceLength).toBe(24)
  })

  it("seals every input to the same bytes as @noble/ciphers, and each opens what the other sealed", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 24, maxLength: 24 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.uint8Array({ maxLength: 80 }),
        (key, nonce, plaintext, aad) => {
          const sealed = native.encrypt(key, nonce, plaintext, aad)
          expect(sealed).toEqual(noble.encrypt(key, nonce, plaintext, aad))
          expect(noble.decrypt(key, nonce, sealed, aad)).toEqual(plaintext)
          expect(native.decrypt(key, nonce, sealed, aad)).toEqual(plaintext)
        },
      ),
      { numRuns: 500 },
    )
  })

  it("refuses a changed byte, other associated data, another key or nonce, and a ciphertext shorter than a tag", () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i)
    const nonce = Uint8Array.from({ length: 24 }, (_, i) => 100 + i)
    const aad = Uint8Array.from([9, 9])
    const sealed = native.encrypt(key, nonce, new TextEncoder().encode("a value"), aad)
    for (let i = 0; i < sealed.length; i++) {
      const changed = sealed.slice()
      changed[i]! ^= 0x01
      expect(() => native.decrypt(key, nonce, changed, aad), `byte ${i}`).toThrow()
    }
    expect(() => native.decrypt(key, nonce, sealed, Uint8Array.from([9]))).toThrow()
    expect(() =>
      native.decrypt(
        key.map((b) => b ^ 1),
        nonce,
        sealed,
        aad,
      ),
    ).toThrow()
    expect(() =>
      native.decrypt(
        key,
        nonce.map((b) => b ^ 1),
        sealed,
        aad,
      ),
    ).toThrow()
    expect(() => native.decrypt(key, nonce, sealed.subarray(0, 15), aad)).toThrow()
    expect(new TextDecoder().decode(native.decrypt(key, nonce, sealed, aad))).toBe("a value")
  })
})
