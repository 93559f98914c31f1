/**
 * The Cipher contract: the rules written on `@coffer/kernel`'s Cipher port, as tests every adapter runs.
 *
 * Each test builds its layers from fresh random master keys, so nothing carries over between tests. Failures
 * must be `CipherError`s, and every one is checked for leaks: its message, string and JSON forms may contain
 * neither a plaintext nor a master key in any common encoding.
 */
import { Cipher, Encoding } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"

export interface CipherKeys {
  readonly current: Redacted.Redacted<Uint8Array>
  readonly previous: ReadonlyArray<Redacted.Redacted<Uint8Array>>
}

type Program<A> = Effect.Effect<A, Cipher.CipherError, Cipher.Cipher>

const newMasterKey = () => Redacted.make(globalThis.crypto.getRandomValues(new Uint8Array(Cipher.KEY_LENGTH)))

/** The forms in which a key could leak into a message. */
const encodingsOf = (key: Redacted.Redacted<Uint8Array>) => {
  const bytes = Redacted.value(key)
  return [Encoding.toHex(bytes), Encoding.toBase64(bytes), Encoding.toBase64Url(bytes)]
}

/** Flips one bit of every byte of a blob's payload, one position at a time. */
const flippedPayloads = (blob: string) => {
  const cut = blob.lastIndexOf(".") + 1
  const payload = Encoding.fromBase64Url(blob.slice(cut))
  if (payload === undefined) throw new Error("the blob's payload is not base64url")
  return Array.from(payload, (_, position) => {
    const copy = payload.slice()
    copy[position] = copy[position]! ^ 0x01
    return { position, blob: blob.slice(0, cut) + Encoding.toBase64Url(copy) }
  })
}

/** Changes every character of a blob's header (the text up to and including the last dot), one at a time. */
const flippedHeaders = (blob: string) => {
  const header = blob.slice(0, blob.lastIndexOf(".") + 1)
  return Array.from(header, (char, position) => ({
    position,
    blob: blob.slice(0, position) + String.fromCharCode(char.charCodeAt(0) ^ 0x01) + blob.slice(position + 1),
  }))
}

const sealedValue = (plaintext: string, aad: string) =>
  Effect.gen(function* () {
    const cipher = yield* Cipher.Cipher
    const dataKey = yield* cipher.newDataKey
    const sealed = yield* cipher.seal(dataKey, plaintext, aad, 1)
    return { dataKey, sealed }
  })

/** Distinctive enough that finding it in an error message can only mean a leak. */
const secretText = "plaintext-7c1e-never-in-errors"
const unicode = "héllo wörld — 秘密 🔐 \u0000 \u200d 👩‍👩‍👧"
const newlines = "line one\nline two\r\nline three\n\n\ttabbed 'single' \"double\" $HOME `cmd` \\n\n"
/** 64 KiB of varied characters, so that a mistake in any block of the stream would show. */
const large = Array.from({ length: 64 * 1024 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 95))).join("")

export const cipherSuite = (
  name: string,
  makeLayer: (keys: CipherKeys) => Layer.Layer<Cipher.Cipher, Cipher.CipherError>,
) =>
  describe(`Cipher contract: ${name}`, () => {
    const run = <A>(keys: CipherKeys, program: Program<A>) =>
      Effect.runPromise(Effect.provide(program, makeLayer(keys)))

    /** Runs each program and asserts that it fails with a CipherError that leaks none of `secrets`. */
    const expectFailures = async (
      keys: CipherKeys,
      programs: ReadonlyArray<{ readonly label: string; readonly program: Program<unknown> }>,
      secrets: ReadonlyArray<string>,
    ) => {
      const results = await run(
        keys,
        Effect.forEach(programs, ({ program }) => Effect.result(program)),
      )
      const leaks = [...secrets, ...encodingsOf(keys.current), ...keys.previous.flatMap(encodingsOf)]
      const messages: Array<string> = []
      results.forEach((result, index) => {
        const label = programs[index]!.label
        if (Result.isSuccess(result)) throw new Error(`expected a CipherError, but it succeeded: ${label}`)
        const error = result.failure
        expect(error, label).toBeInstanceOf(Cipher.CipherError)
        expect(error._tag, label).toBe("CipherError")
        expect(error.message, label).not.toBe("")
        for (const text of [error.message, String(error), JSON.stringify(error)]) {
          for (const secret of leaks) expect(text.includes(secret), `${label} leaks a secret`).toBe(false)
        }
        messages.push(error.message)
      })
      return messages
    }

    it("round-trips the empty string, unicode, line breaks, a leading byte-order mark and 64 KiB", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const aad = Cipher.associatedData(["project", "development", "KEY", "1"])
      // A value may start with U+FEFF (a BOM): it is a character of the value like any other, and comes back.
      const values = ["", unicode, newlines, "\ufeffhunter2", "\ufeff", "\ufeff\ufeffy", large]
      const opened = await run(
        keys,
        Effect.forEach(values, (value) =>
          Effect.gen(function* () {
            const cipher = yield* Cipher.Cipher
            const { dataKey, sealed } = yield* sealedValue(value, aad)
            expect(sealed).toMatch(/^csv2\.1\.[A-Za-z0-9_-]+$/)
            if (value !== "") expect(sealed.includes(value)).toBe(false)
            return yield* cipher.open(dataKey, sealed, aad)
          }),
        ),
      )
      expect(opened).toEqual(values)
    })

    it("opens many values sealed under one data key", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const values = Array.from({ length: 20 }, (_, i) => `value ${i}`)
      const opened = await run(
        keys,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const dataKey = yield* cipher.newDataKey
          const sealed = yield* Effect.forEach(values, (value, i) =>
            cipher.seal(dataKey, value, Cipher.associatedData([String(i)]), i + 1),
          )
          return yield* Effect.forEach(sealed, (blob, i) =>
            cipher.open(dataKey, blob, Cipher.associatedData([String(i)])),
          )
        }),
      )
      expect(opened).toEqual(values)
    })

    it("opens many values in one call, in order, as open does one by one", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const values = ["", unicode, newlines, large, ...Array.from({ length: 200 }, (_, i) => `value ${i}`)]
      const { all, none } = await run(
        keys,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const dataKey = yield* cipher.newDataKey
          const blobs = yield* Effect.forEach(values, (value, i) =>
            Effect.map(cipher.seal(dataKey, value, Cipher.associatedData([String(i)]), 1), (sealed) => ({
              sealed,
              associatedData: Cipher.associatedData([String(i)]),
            })),
          )
          // A key that is no longer kept in memory is unwrapped again for the whole list.
          yield* cipher.forget(dataKey)
          return { all: yield* cipher.openAll(dataKey, blobs), none: yield* cipher.openAll(dataKey, []) }
        }),
      )
      expect(all).toEqual(values)
      expect(none).toEqual([])
    })

    it("refuses a whole list when any one value in it does not open, leaking nothing", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const aad = (i: number) => Cipher.associatedData(["p", "e", `KEY_${i}`, "1"])
      const { dataKey, blobs, other } = await run(
        keys,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const dataKey = yield* cipher.newDataKey
          const blobs = yield* Effect.forEach([0, 1, 2], (i) =>
            Effect.map(cipher.seal(dataKey, `${secretText} ${i}`, aad(i), 1), (sealed) => ({
              sealed,
              associatedData: aad(i),
            })),
          )
          const other = yield* cipher.seal(yield* cipher.newDataKey, `${secretText} 1`, aad(1), 1)
          return { dataKey, blobs, other }
        }),
      )
      const [first, second, third] = blobs as [Cipher.SealedBlob, Cipher.SealedBlob, Cipher.SealedBlob]
      const payload = Encoding.fromBase64Url(second.sealed.slice("csv2.1.".length))!
      payload[payload.length - 1]! ^= 1
      const lists: ReadonlyArray<{ readonly label: string; readonly blobs: ReadonlyArray<Cipher.SealedBlob> }> = [
        {
          label: "tag changed",
          blobs: [first, { ...second, sealed: `csv2.1.${Encoding.toBase64Url(payload)}` }, third],
        },
        { label: "other associated data", blobs: [first, { ...second, associatedData: aad(2) }, third] },
        { label: "another data key's value", blobs: [first, { ...second, sealed: other }, third] },
        { label: "not a blob", blobs: [first, { ...second, sealed: "csv1.!" }, third] },
        { label: "lone surrogate in associated data", blobs: [first, { ...second, associatedData: "\ud800" }, third] },
      ]
      await expectFailures(
        keys,
        lists.map(({ label, blobs }) => ({
          label,
          program: Cipher.Cipher.use((cipher) => cipher.openAll(dataKey, blobs)),
        })),
        [secretText],
      )
      expect(
        await run(
          keys,
          Cipher.Cipher.use((cipher) => cipher.openAll(dataKey, blobs)),
        ),
      ).toEqual([0, 1, 2].map((i) => `${secretText} ${i}`))
    })

    it("names the wrapping master key by a stable id that reveals nothing of it", async () => {
      const key = newMasterKey()
      const other = newMasterKey()
      const program = Effect.gen(function* () {
        const cipher = yield* Cipher.Cipher
        const dataKey = yield* cipher.newDataKey
        return { currentKeyId: cipher.currentKeyId, dataKey, keyIdOf: yield* cipher.keyIdOf(dataKey) }
      })
      const first = await run({ current: key, previous: [] }, program)
      const again = await run({ current: key, previous: [other] }, program)
      const elsewhere = await run({ current: other, previous: [] }, program)

      expect(first.currentKeyId).toMatch(/^[0-9a-f]{16}$/)
      expect(first.dataKey).toMatch(new RegExp(`^cdk1\\.${first.currentKeyId}\\.[A-Za-z0-9_-]+$`))
      expect(first.keyIdOf).toBe(first.currentKeyId)
      expect(again.currentKeyId).toBe(first.currentKeyId)
      expect(elsewhere.currentKeyId).not.toBe(first.currentKeyId)
      // Not a prefix of the key, nor of its plain SHA-256: the id is derived with a domain tag.
      const bytes = Redacted.value(key)
      const plainHash = Encoding.toHex(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes)))
      expect(Encoding.toHex(bytes).startsWith(first.currentKeyId)).toBe(false)
      expect(plainHash.startsWith(first.currentKeyId)).toBe(false)
    })

    it("seals the same plaintext differently every time, and draws a new data key every time", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const aad = Cipher.associatedData(["p", "e", "KEY", "1"])
      const result = await run(
        keys,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const dataKey = yield* cipher.newDataKey
          const otherDataKey = yield* cipher.newDataKey
          const first = yield* cipher.seal(dataKey, "same", aad, 1)
          const second = yield* cipher.seal(dataKey, "same", aad, 1)
          const opened = [yield* cipher.open(dataKey, first, aad), yield* cipher.open(dataKey, second, aad)]
          const rewrapped = yield* cipher.rewrap(dataKey)
          return { dataKey, otherDataKey, first, second, opened, rewrapped }
        }),
      )
      expect(result.first).not.toBe(result.second)
      expect(result.opened).toEqual(["same", "same"])
      expect(result.otherDataKey).not.toBe(result.dataKey)
      expect(result.rewrapped).not.toBe(result.dataKey)
    })

    it("refuses a sealed value with any byte changed, in its header, nonce, ciphertext or tag", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const plaintext = "a secret worth tampering with"
      const aad = Cipher.associatedData(["p", "e", "KEY", "1"])
      const { dataKey, sealed } = await run(keys, sealedValue(plaintext, aad))
      const payloads = flippedPayloads(sealed)
      const payload = Encoding.fromBase64Url(sealed.slice("csv2.1.".length))!
      // Nonce, ciphertext and tag together: the payload is longer than the plaintext by at least a nonce and a tag.
      expect(payloads.length).toBeGreaterThanOrEqual(plaintext.length + 16 + 12)
      const tampered = [
        ...payloads.map(({ position, blob }) => ({ label: `payload byte ${position}`, blob })),
        ...flippedHeaders(sealed).map(({ position, blob }) => ({ label: `header character ${position}`, blob })),
        { label: "last character dropped", blob: sealed.slice(0, -1) },
        { label: "a character appended", blob: `${sealed}A` },
        { label: "payload truncated by a byte", blob: `csv2.1.${Encoding.toBase64Url(payload.subarray(0, -1))}` },
        { label: "tag removed", blob: `csv2.1.${Encoding.toBase64Url(payload.subarray(0, -16))}` },
        { label: "only 8 bytes left", blob: `csv2.1.${Encoding.toBase64Url(payload.subarray(0, 8))}` },
      ]
      await expectFailures(
        keys,
        tampered.map(({ label, blob }) => ({
          label,
          program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, blob, aad)),
        })),
        [plaintext],
      )
      // The untouched blob still opens: the failures above are the changes, not the setup.
      expect(
        await run(
          keys,
          Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, aad)),
        ),
      ).toBe(plaintext)
    })

    it("refuses a wrapped data key with any byte changed, in its header, key id, nonce, ciphertext or tag", async () => {
      const other = newMasterKey()
      const keys = { current: newMasterKey(), previous: [other] }
      const otherId = await Effect.runPromise(Cipher.masterKeyId(other))
      const { dataKey, sealed } = await run(keys, sealedValue(secretText, "aad"))
      const currentId = dataKey.split(".")[1]!
      const tampered = [
        ...flippedPayloads(dataKey).map(({ position, blob }) => ({ label: `payload byte ${position}`, blob })),
        ...flippedHeaders(dataKey).map(({ position, blob }) => ({ label: `header character ${position}`, blob })),
        // Another key of the ring named in the header: unwrapping must use the key that wrapped it, or fail.
        { label: "key id swapped for another key in the ring", blob: dataKey.replace(currentId, otherId) },
        { label: "last character dropped", blob: dataKey.slice(0, -1) },
      ]
      await expectFailures(
        keys,
        tampered.flatMap(({ label, blob }) => [
          { label: `open: ${label}`, program: Cipher.Cipher.use((cipher) => cipher.open(blob, sealed, "aad")) },
          { label: `seal: ${label}`, program: Cipher.Cipher.use((cipher) => cipher.seal(blob, secretText, "aad", 1)) },
          { label: `rewrap: ${label}`, program: Cipher.Cipher.use((cipher) => cipher.rewrap(blob)) },
        ]),
        [secretText],
      )
    })

    it("refuses blobs that are not in their format, and one kind of blob in place of the other", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const { dataKey, sealed } = await run(keys, sealedValue(secretText, "aad"))
      const notDataKeys = ["", "cdk1", "cdk1..", `cdk2${dataKey.slice(4)}`, `${dataKey}.x`, `${dataKey}=`, sealed]
      const notSealed = [
        "",
        "csv1",
        "csv1.",
        "csv1.!!!!",
        "csv2",
        "csv2.1.",
        "csv2.0.AAAA",
        `csv3${sealed.slice(4)}`,
        `${sealed}=`,
        `csv1.${sealed}`,
        `csv2.1.${sealed}`,
        dataKey,
      ]
      await expectFailures(
        keys,
        [
          ...notDataKeys.flatMap((blob) => [
            {
              label: `open with ${JSON.stringify(blob)}`,
              program: Cipher.Cipher.use((cipher) => cipher.open(blob, sealed, "aad")),
            },
            { label: `rewrap ${JSON.stringify(blob)}`, program: Cipher.Cipher.use((cipher) => cipher.rewrap(blob)) },
            { label: `keyIdOf ${JSON.stringify(blob)}`, program: Cipher.Cipher.use((cipher) => cipher.keyIdOf(blob)) },
          ]),
          ...notSealed.map((blob) => ({
            label: `open ${JSON.stringify(blob)}`,
            program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, blob, "aad")),
          })),
        ],
        [secretText],
      )
    })

    it("refuses a blob whose base64url is not the canonical encoding of its bytes", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      /** Other last characters that decode to the same bytes (unused low bits set); none when length % 3 = 0. */
      const aliases = (blob: string) =>
        Array.from(alphabet)
          .map((char) => blob.slice(0, -1) + char)
          .filter((alias) => {
            const decoded = Encoding.fromBase64Url(alias.slice(alias.lastIndexOf(".") + 1))
            const original = Encoding.fromBase64Url(blob.slice(blob.lastIndexOf(".") + 1))
            return alias !== blob && decoded !== undefined && Encoding.toHex(decoded) === Encoding.toHex(original!)
          })
      // Three plaintext lengths in a row: at least one payload length is not a multiple of three.
      const blobs = await run(
        keys,
        Effect.forEach([secretText, `${secretText}x`, `${secretText}xx`], (text) => sealedValue(text, "row")),
      )
      const programs = blobs.flatMap(({ dataKey, sealed }) => [
        ...aliases(sealed).map((alias) => ({
          label: `sealed ${alias}`,
          program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, alias, "row")),
        })),
        ...aliases(dataKey).map((alias) => ({
          label: `data key ${alias}`,
          program: Cipher.Cipher.use((cipher) => cipher.open(alias, sealed, "row")),
        })),
      ])
      expect(programs.length).toBeGreaterThan(0)
      await expectFailures(keys, programs, [secretText])
    })

    it("refuses to open with other associated data", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const plaintext = "bound to its row"
      const row = ["project-1", "development", "API_KEY", "3"]
      const aad = Cipher.associatedData(row)
      const { dataKey, sealed } = await run(keys, sealedValue(plaintext, aad))
      const others = [
        ["project-2", "development", "API_KEY", "3"],
        ["project-1", "production", "API_KEY", "3"],
        ["project-1", "development", "OTHER_KEY", "3"],
        ["project-1", "development", "API_KEY", "2"],
        ["project-1", "development", "API_KEY"],
        ["project-1", "development", "API_KEY", "3", ""],
        // The same characters split differently must not collide.
        ["project-1d", "evelopment", "API_KEY", "3"],
        ["project-1", "developmentAPI_KEY", "3"],
      ]
      const otherAads = others.map((parts) => Cipher.associatedData(parts))
      expect(new Set([aad, ...otherAads]).size).toBe(others.length + 1)
      await expectFailures(
        keys,
        [
          ...otherAads.map((other, i) => ({
            label: `associated data ${JSON.stringify(others[i])}`,
            program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, other)),
          })),
          { label: "no associated data", program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, "")) },
          {
            label: "raw joined parts",
            program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, row.join(""))),
          },
        ],
        [plaintext],
      )
      expect(
        await run(
          keys,
          Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, aad)),
        ),
      ).toBe(plaintext)
    })

    it("refuses to open a value with another project's data key", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const plaintext = "project one's secret"
      const { sealed } = await run(keys, sealedValue(plaintext, "aad"))
      const otherProject = await run(
        keys,
        Cipher.Cipher.use((cipher) => cipher.newDataKey),
      )
      await expectFailures(
        keys,
        [{ label: "other data key", program: Cipher.Cipher.use((cipher) => cipher.open(otherProject, sealed, "aad")) }],
        [plaintext],
      )
    })

    it("names the data key version in the sealed value and binds it: another version in the header does not open", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const plaintext = "sealed under data key version 7"
      const { dataKey, sealed } = await run(
        keys,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const dataKey = yield* cipher.newDataKey
          return { dataKey, sealed: yield* cipher.seal(dataKey, plaintext, "row", 7) }
        }),
      )
      expect(sealed.startsWith(Cipher.sealedPrefix(7))).toBe(true)
      expect(Cipher.sealedHeader(sealed)).toEqual({ format: "csv2", dataKeyVersion: 7 })
      expect(Cipher.sealedHeader(`csv1.${sealed.slice(Cipher.sealedPrefix(7).length)}`)).toEqual({
        format: "csv1",
        dataKeyVersion: 1,
      })
      expect(Cipher.sealedHeader("plain text")).toBeUndefined()
      const payload = sealed.slice(Cipher.sealedPrefix(7).length)
      await expectFailures(
        keys,
        [
          ...[1, 6, 8, 70].map((version) => ({
            label: `header names version ${version}`,
            program: Cipher.Cipher.use((cipher) =>
              cipher.open(dataKey, `${Cipher.sealedPrefix(version)}${payload}`, "row"),
            ),
          })),
          {
            label: "header turned into the version-less format",
            program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, `csv1.${payload}`, "row")),
          },
          ...[0, -1, 1.5, 1e10].map((version) => ({
            label: `seal under version ${version}`,
            program: Cipher.Cipher.use((cipher) => cipher.seal(dataKey, plaintext, "row", version)),
          })),
        ],
        [plaintext],
      )
      expect(
        await run(
          keys,
          Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, "row")),
        ),
      ).toBe(plaintext)
    })

    it("keeps opening after a master-key rotation, and rewrap moves the data key to the new key", async () => {
      const oldKey = newMasterKey()
      const newKey = newMasterKey()
      const plaintext = "sealed before the rotation"
      const before = { current: oldKey, previous: [] }
      const during = { current: newKey, previous: [oldKey] }
      const after = { current: newKey, previous: [] }
      const { dataKey, sealed } = await run(before, sealedValue(plaintext, "row"))
      const oldId = await run(
        before,
        Cipher.Cipher.use((cipher) => Effect.succeed(cipher.currentKeyId)),
      )

      const rotated = await run(
        during,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const opened = yield* cipher.open(dataKey, sealed, "row")
          const idBefore = yield* cipher.keyIdOf(dataKey)
          const rewrapped = yield* cipher.rewrap(dataKey)
          return {
            opened,
            idBefore,
            rewrapped,
            idAfter: yield* cipher.keyIdOf(rewrapped),
            current: cipher.currentKeyId,
          }
        }),
      )
      expect(rotated.opened).toBe(plaintext)
      expect(rotated.idBefore).toBe(oldId)
      expect(rotated.current).not.toBe(oldId)
      expect(rotated.idAfter).toBe(rotated.current)

      // Once every data key is rewrapped, the old master key can leave the ring.
      const reopened = await run(
        after,
        Effect.gen(function* () {
          const cipher = yield* Cipher.Cipher
          const opened = yield* cipher.open(rotated.rewrapped, sealed, "row")
          const fresh = yield* sealedValue("sealed after the rotation", "row")
          return { opened, freshOpened: yield* cipher.open(fresh.dataKey, fresh.sealed, "row") }
        }),
      )
      expect(reopened).toEqual({ opened: plaintext, freshOpened: "sealed after the rotation" })

      // A data key still under the old master key does not open once that key is gone.
      const [message] = await expectFailures(
        after,
        [{ label: "old data key", program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, "row")) }],
        [plaintext],
      )
      expect(message).toContain(oldId)
    })

    it("refuses a data key wrapped by a master key that is not in the keyring", async () => {
      const stranger = { current: newMasterKey(), previous: [] }
      const keys = { current: newMasterKey(), previous: [newMasterKey()] }
      const plaintext = "made elsewhere"
      const { dataKey, sealed } = await run(stranger, sealedValue(plaintext, "row"))
      await expectFailures(
        keys,
        [
          { label: "open", program: Cipher.Cipher.use((cipher) => cipher.open(dataKey, sealed, "row")) },
          { label: "seal", program: Cipher.Cipher.use((cipher) => cipher.seal(dataKey, plaintext, "row", 1)) },
          { label: "rewrap", program: Cipher.Cipher.use((cipher) => cipher.rewrap(dataKey)) },
        ],
        [plaintext, ...encodingsOf(stranger.current)],
      )
      // The header is still readable, so an operator can see which key is missing.
      const strangerId = await Effect.runPromise(Cipher.masterKeyId(stranger.current))
      expect(
        await run(
          keys,
          Cipher.Cipher.use((cipher) => cipher.keyIdOf(dataKey)),
        ),
      ).toBe(strangerId)
    })

    it("refuses text that UTF-8 cannot carry rather than altering it", async () => {
      const keys = { current: newMasterKey(), previous: [] }
      const dataKey = await run(
        keys,
        Cipher.Cipher.use((cipher) => cipher.newDataKey),
      )
      await expectFailures(
        keys,
        [
          { label: "lone high surrogate", program: Cipher.Cipher.use((c) => c.seal(dataKey, "a\ud800b", "row", 1)) },
          { label: "lone low surrogate", program: Cipher.Cipher.use((c) => c.seal(dataKey, "\udc00", "row", 1)) },
          { label: "associated data", program: Cipher.Cipher.use((c) => c.seal(dataKey, secretText, "row\ud800", 1)) },
        ],
        [],
      )
    })

    it("refuses master keys that are not 32 bytes", async () => {
      const attempts = [
        { current: Redacted.make(new Uint8Array(31)), previous: [] },
        { current: Redacted.make(new Uint8Array(33)), previous: [] },
        { current: newMasterKey(), previous: [Redacted.make(new Uint8Array(16))] },
      ]
      for (const keys of attempts) {
        const result = await Effect.runPromise(
          Effect.result(
            Effect.provide(
              Cipher.Cipher.use((cipher) => Effect.succeed(cipher.currentKeyId)),
              makeLayer(keys),
            ),
          ),
        )
        expect(Result.isFailure(result) && result.failure).toBeInstanceOf(Cipher.CipherError)
      }
    })

    it("never puts plaintext or key material in an error", async () => {
      const keys = { current: newMasterKey(), previous: [newMasterKey()] }
      const plaintext = "correct horse battery staple 7f3a9c"
      const { dataKey, sealed } = await run(keys, sealedValue(plaintext, "row"))
      const otherDataKey = await run(
        keys,
        Cipher.Cipher.use((cipher) => cipher.newDataKey),
      )
      const flipped = flippedPayloads(sealed)
      const messages = await expectFailures(
        keys,
        [
          { label: "wrong row", program: Cipher.Cipher.use((c) => c.open(dataKey, sealed, "other row")) },
          { label: "wrong data key", program: Cipher.Cipher.use((c) => c.open(otherDataKey, sealed, "row")) },
          { label: "tampered", program: Cipher.Cipher.use((c) => c.open(dataKey, flipped.at(-1)!.blob, "row")) },
          { label: "plaintext as blob", program: Cipher.Cipher.use((c) => c.open(dataKey, plaintext, "row")) },
          { label: "plaintext as key", program: Cipher.Cipher.use((c) => c.seal(plaintext, plaintext, "row", 1)) },
        ],
        [plaintext, sealed.slice(5)],
      )
      expect(new Set(messages).size).toBeGreaterThan(1)
    })
  })
