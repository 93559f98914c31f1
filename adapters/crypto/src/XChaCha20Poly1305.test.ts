/**
 * XChaCha20Poly1305 runs the Cipher contract, checks its primitive against the published test vector, and
 * checks how operators' master keys are read.
 */

import { cipherSuite } from "@coffer/contract"
import { Cipher, Encoding } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { XChaCha20Poly1305 } from "./index.js"

cipherSuite("XChaCha20Poly1305", (keys) =>
  XChaCha20Poly1305.layer({ masterKey: keys.current, previousKeys: keys.previous }),
)

const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16))

describe("XChaCha20Poly1305 primitive", () => {
  // draft-irtf-cfrg-xchacha-03, appendix A.3.1.
  const key = fromHex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
  const nonce = fromHex("404142434445464748494a4b4c4d4e4f5051525354555657")
  const aad = fromHex("50515253c0c1c2c3c4c5c6c7")
  const plaintext = Encoding.utf8.encode(
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
  )
  const expected =
    "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216" +
    "cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13" +
    "b52ec0875924c1c7987947deafd8780acf49"

  it("matches the published test vector both ways", () => {
    const ciphertext = XChaCha20Poly1305.primitives.encrypt(key, nonce, plaintext, aad)
    expect(Encoding.toHex(ciphertext)).toBe(expected)
    expect(XChaCha20Poly1305.primitives.decrypt(key, nonce, ciphertext, aad)).toEqual(plaintext)
  })

  it("uses 24-byte random nonces, so a sealed empty string is a nonce and a 16-byte tag", async () => {
    expect(XChaCha20Poly1305.primitives.nonceLength).toBe(24)
    const masterKey = Redacted.make(XChaCha20Poly1305.primitives.randomBytes(32))
    const sealed = await Effect.runPromise(
      Effect.gen(function* () {
        const cipher = yield* Cipher.Cipher
        return yield* cipher.seal(yield* cipher.newDataKey, "", "row", 1)
      }).pipe(Effect.provide(XChaCha20Poly1305.layer({ masterKey }))),
    )
    expect(Encoding.fromBase64Url(sealed.slice("csv2.1.".length))?.length).toBe(24 + 16)
    // Migration 0014 of @coffer/adapter-sql tells values stored before it as empty by this length.
    expect(sealed.length - "csv2.1.".length).toBe(54)
  })
})

describe("XChaCha20Poly1305 stored blobs", () => {
  // Written by this adapter once and pinned: data already in databases must keep opening, so any change to the
  // formats, the key-id derivation or what the associated data binds fails here first.
  const masterKey = Redacted.make(Uint8Array.from({ length: 32 }, (_, i) => i + 1))
  const keyId = "b0b0ad33bb74a25e"
  const dataKey =
    "cdk1.b0b0ad33bb74a25e.ejEIlQ11Exe_QoRhuMY6CZ7-xbnwKHr5p6_4d-zAXyib8ITasLnjE5dBmezvH-kEWJnewLtzm7w9k-OBAHDQaeI8uYx_39hl"
  const sealed = "csv1.Or8mgbt4JncGGWYS74oyp_HqyapuiTbuXNUoDB030AbZsEX__wbJ6Bry9Crmg4dm184L0eJWl7Yk"
  const row = Cipher.associatedData(["project", "development", "API_KEY", "1"])

  it("opens a data key and a value written by an earlier version", async () => {
    const opened = await Effect.runPromise(
      Effect.gen(function* () {
        const cipher = yield* Cipher.Cipher
        return { keyId: cipher.currentKeyId, value: yield* cipher.open(dataKey, sealed, row) }
      }).pipe(Effect.provide(XChaCha20Poly1305.layer({ masterKey }))),
    )
    expect(opened).toEqual({ keyId, value: "pinned value \u2713\n" })
  })

  it("opens a csv2 value (data key version 2, the secret id bound) written by an earlier version", async () => {
    const sealedV2 = "csv2.2.7z-cm0Kd5tV-1vC43Mzm7TuRKpU_mLHPtK246tzeS3leKOUjiRiAXP4FN_3aY3vjsjxNq8Nxa3Pi"
    const rowV2 = Cipher.associatedData(["project", "development", "secret", "API_KEY", "1"])
    const opened = await Effect.runPromise(
      Effect.gen(function* () {
        const cipher = yield* Cipher.Cipher
        return {
          header: Cipher.sealedHeader(sealedV2),
          value: yield* cipher.open(dataKey, sealedV2, rowV2),
          asVersionOne: yield* Effect.flip(cipher.open(dataKey, sealedV2.replace("csv2.2.", "csv2.1."), rowV2)),
        }
      }).pipe(Effect.provide(XChaCha20Poly1305.layer({ masterKey }))),
    )
    expect(opened.header).toEqual({ format: "csv2", dataKeyVersion: 2 })
    expect(opened.value).toBe("pinned value \u2713\n")
    expect(opened.asVersionOne._tag).toBe("CipherError")
  })
})

describe("parseMasterKey", () => {
  const parse = (text: string) => Effect.runSync(Effect.result(XChaCha20Poly1305.parseMasterKey(text)))
  const bytes = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
  const base64 = Encoding.toBase64(bytes)

  const expectRefused = (text: string, mentions: string) => {
    const result = parse(text)
    if (Result.isSuccess(result)) throw new Error(`accepted ${JSON.stringify(text)}`)
    expect(result.failure).toBeInstanceOf(Cipher.CipherError)
    expect(result.failure.message).toContain(mentions)
    expect(result.failure.message).toContain("openssl rand -base64 32")
    if (text.trim() !== "") expect(result.failure.message.includes(text.trim())).toBe(false)
  }

  it("accepts base64 of exactly 32 bytes and keeps it redacted", () => {
    const result = parse(base64)
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    expect(Redacted.value(result.success)).toEqual(bytes)
    expect(String(result.success)).not.toContain(base64)
    expect(JSON.stringify({ key: result.success })).not.toContain(base64)
  })

  it("ignores surrounding whitespace, such as the newline at the end of a key file", () => {
    for (const text of [`${base64}\n`, `  ${base64}\t`, `\r\n${base64}\r\n`]) {
      const result = parse(text)
      if (Result.isFailure(result)) throw new Error(result.failure.message)
      expect(Redacted.value(result.success)).toEqual(bytes)
    }
  })

  it("refuses whitespace inside the key", () => {
    expectRefused(`${base64.slice(0, 20)} ${base64.slice(20)}`, "not base64")
    expectRefused(`${base64.slice(0, 20)}\n${base64.slice(20)}`, "not base64")
  })

  it("refuses the wrong length, and says which length it got", () => {
    expectRefused(Encoding.toBase64(bytes.subarray(0, 31)), "not 31")
    expectRefused(Encoding.toBase64(new Uint8Array(33).fill(7)), "not 33")
    expectRefused(Encoding.toBase64(new Uint8Array(64).fill(7)), "not 64")
    expectRefused("", "not 0")
    expectRefused("   \n", "not 0")
  })

  it("refuses text that is not base64", () => {
    expectRefused(base64.replace(/=$/, ""), "not base64")
    expectRefused(Encoding.toBase64Url(Uint8Array.from({ length: 32 }, () => 0xfb)), "not base64")
    expectRefused(`${base64.slice(0, -2)}!=`, "not base64")
    expectRefused(Encoding.toHex(bytes), "not 48")
  })

  it("refuses an all-zero placeholder key", () => {
    expectRefused(Encoding.toBase64(new Uint8Array(32)), "all zero")
  })
})

describe("parseMasterKeys", () => {
  const keyA = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
  const keyB = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)
  const parse = (text: string) => Effect.runSync(Effect.result(XChaCha20Poly1305.parseMasterKeys(text)))

  it("reads a comma-separated list, and empty text as no keys", () => {
    for (const [text, expected] of [
      ["", []],
      [" \n", []],
      [Encoding.toBase64(keyA), [keyA]],
      [`${Encoding.toBase64(keyA)}, ${Encoding.toBase64(keyB)}\n`, [keyA, keyB]],
    ] as const) {
      const result = parse(text)
      if (Result.isFailure(result)) throw new Error(result.failure.message)
      expect(result.success.map(Redacted.value)).toEqual(expected)
    }
  })

  it("names a bad entry by its position, never by its value", () => {
    const bad = Encoding.toBase64(keyB.subarray(0, 16))
    const result = parse(`${Encoding.toBase64(keyA)},${bad}`)
    if (Result.isSuccess(result)) throw new Error("accepted a 16-byte key")
    expect(result.failure.message).toContain("#2")
    expect(result.failure.message).toContain("not 16")
    expect(result.failure.message.includes(bad)).toBe(false)
    expect(Result.isFailure(parse(`${Encoding.toBase64(keyA)},`))).toBe(true)
  })
})

describe("unwrapped data keys in memory", () => {
  /** The real primitive, counting the data keys it unwraps (decryptions whose output is a 32-byte key). */
  const counting = () => {
    const counts = { unwraps: 0 }
    const primitives: Cipher.Primitives = {
      ...XChaCha20Poly1305.primitives,
      decrypt: (key, nonce, ciphertext, aad) => {
        const plaintext = XChaCha20Poly1305.primitives.decrypt(key, nonce, ciphertext, aad)
        if (Encoding.fromUtf8.decode(aad).includes("cdk1")) counts.unwraps++
        return plaintext
      },
    }
    const masterKey = Redacted.make(XChaCha20Poly1305.primitives.randomBytes(32))
    return {
      counts,
      make: Cipher.make(primitives, { current: masterKey, previous: [] }),
      makeWith: (memory: Cipher.DataKeyMemory) => Cipher.make(primitives, { current: masterKey, previous: [] }, memory),
    }
  }

  it("unwraps a data key once for many values, again after forget or after its time is up", async () => {
    const { counts, make } = counting()
    await Effect.runPromise(
      Effect.gen(function* () {
        const cipher = yield* make
        const dataKey = yield* cipher.newDataKey
        const sealed = yield* cipher.seal(dataKey, "s3cret", "row", 1)
        for (let i = 0; i < 5; i++) expect(yield* cipher.open(dataKey, sealed, "row")).toBe("s3cret")
        expect(counts.unwraps).toBe(1)
        // A project deleted, a wrap replaced: the next use unwraps again.
        yield* cipher.forget(dataKey)
        expect(yield* cipher.open(dataKey, sealed, "row")).toBe("s3cret")
        expect(counts.unwraps).toBe(2)
        yield* TestClock.adjust(Cipher.DATA_KEY_TTL_MS - 1)
        yield* cipher.open(dataKey, sealed, "row")
        expect(counts.unwraps).toBe(2)
        yield* TestClock.adjust(1)
        yield* cipher.open(dataKey, sealed, "row")
        expect(counts.unwraps).toBe(3)
        // A value that does not open under the kept key still fails, and the key stays usable.
        expect((yield* Effect.flip(cipher.open(dataKey, sealed, "another row")))._tag).toBe("CipherError")
        expect(yield* cipher.open(dataKey, sealed, "row")).toBe("s3cret")
        expect(counts.unwraps).toBe(3)
      }).pipe(Effect.provide(TestClock.layer())),
    )
  })

  it("keeps at most DATA_KEYS_MAX keys, dropping the one used longest ago", async () => {
    const { counts, make } = counting()
    await Effect.runPromise(
      Effect.gen(function* () {
        const cipher = yield* make
        const keys: Array<string> = []
        for (let i = 0; i <= Cipher.DATA_KEYS_MAX; i++) keys.push(yield* cipher.newDataKey)
        const sealed = yield* cipher.seal(keys[0]!, "first", "row", 1)
        for (const key of keys.slice(1)) yield* cipher.seal(key, "x", "row", 1)
        expect(counts.unwraps).toBe(Cipher.DATA_KEYS_MAX + 1)
        // The first key was used longest ago and left when the last came in.
        expect(yield* cipher.open(keys[0]!, sealed, "row")).toBe("first")
        expect(counts.unwraps).toBe(Cipher.DATA_KEYS_MAX + 2)
      }),
    )
  })

  it("keeps the bounds the host sets (COFFER_DATA_KEYS_MAX, COFFER_DATA_KEY_TTL_SECONDS)", async () => {
    const { counts, makeWith } = counting()
    await Effect.runPromise(
      Effect.gen(function* () {
        const cipher = yield* makeWith({ max: 2, ttlMs: 1_000 })
        const [a, b, c] = [yield* cipher.newDataKey, yield* cipher.newDataKey, yield* cipher.newDataKey]
        const sealed = yield* cipher.seal(a, "kept", "row", 1)
        yield* cipher.seal(b, "x", "row", 1)
        expect(counts.unwraps).toBe(2)
        expect(yield* cipher.open(a, sealed, "row")).toBe("kept")
        expect(counts.unwraps).toBe(2)
        // A third key makes b leave (used longest ago), not a.
        yield* cipher.seal(c, "x", "row", 1)
        yield* cipher.open(a, sealed, "row")
        expect(counts.unwraps).toBe(3)
        yield* cipher.seal(b, "x", "row", 1)
        expect(counts.unwraps).toBe(4)
        // Its time is a second, not five minutes.
        yield* TestClock.adjust(1_000)
        yield* cipher.open(a, sealed, "row")
        expect(counts.unwraps).toBe(5)
        expect((yield* Effect.flip(makeWith({ max: 0, ttlMs: 1_000 })))._tag).toBe("CipherError")
      }).pipe(Effect.provide(TestClock.layer())),
    )
  })
})
