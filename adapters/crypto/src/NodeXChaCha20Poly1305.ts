/**
 * XChaCha20-Poly1305 on `node:crypto`: the same AEAD as `XChaCha20Poly1305.primitives`, byte for byte, with the
 * ChaCha20 and Poly1305 work done natively. XChaCha20 is ChaCha20-Poly1305 (RFC 8439) under a subkey that HChaCha20
 * derives from the key and the first 16 bytes of the 24-byte nonce, with the last 8 bytes as the nonce; only that
 * one block of HChaCha20 runs in JavaScript (`@noble/ciphers`). An export opens thousands of values, where the
 * pure-JavaScript cipher was the largest single cost.
 *
 * Bun's `node:crypto` has no `chacha20-poly1305`, and a big-endian host would need other word handling: `primitives`
 * is chosen only after it sealed and opened a fixed vector exactly as `@noble/ciphers` does, and is `undefined`
 * otherwise (the caller then uses the pure-JavaScript cipher).
 */
import { createCipheriv, createDecipheriv } from "node:crypto"
import { type Cipher, Random } from "@coffer/kernel"
import { hchacha, xchacha20poly1305 } from "@noble/ciphers/chacha.js"

const TAG_LENGTH = 16
// "expand 32-byte k" as little-endian words.
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574])

// Scratch words for HChaCha20, reused by every call (each runs to its end synchronously) and zeroed after it.
const keyWords = new Uint32Array(8)
const keyBytes = new Uint8Array(keyWords.buffer)
const nonceWords = new Uint32Array(4)
const nonceBytes = new Uint8Array(nonceWords.buffer)

/** The ChaCha20-Poly1305 key and 12-byte nonce that XChaCha20-Poly1305 uses for `key` and its 24-byte `nonce`. */
const derive = (key: Uint8Array, nonce: Uint8Array) => {
  keyBytes.set(key)
  nonceBytes.set(nonce.subarray(0, 16))
  const subkey = new Uint32Array(8)
  hchacha(SIGMA, keyWords, nonceWords, subkey)
  keyWords.fill(0)
  const iv = new Uint8Array(12)
  iv.set(nonce.subarray(16, 24), 4)
  return { subkey: new Uint8Array(subkey.buffer), iv }
}

const encrypt = (key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array => {
  const { subkey, iv } = derive(key, nonce)
  try {
    const cipher = createCipheriv("chacha20-poly1305", subkey, iv, { authTagLength: TAG_LENGTH })
    cipher.setAAD(aad, { plaintextLength: plaintext.length })
    const body = cipher.update(plaintext)
    cipher.final()
    const out = new Uint8Array(body.length + TAG_LENGTH)
    out.set(body)
    out.set(cipher.getAuthTag(), body.length)
    return out
  } finally {
    subkey.fill(0)
  }
}

const decrypt = (key: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array, aad: Uint8Array): Uint8Array => {
  if (ciphertext.length < TAG_LENGTH) throw new Error("ciphertext shorter than its tag")
  const { subkey, iv } = derive(key, nonce)
  try {
    const length = ciphertext.length - TAG_LENGTH
    const decipher = createDecipheriv("chacha20-poly1305", subkey, iv, { authTagLength: TAG_LENGTH })
    decipher.setAAD(aad, { plaintextLength: length })
    decipher.setAuthTag(ciphertext.subarray(length))
    const body = decipher.update(ciphertext.subarray(0, length))
    try {
      // Throws when the tag does not authenticate; the unauthenticated plaintext is then wiped, never returned.
      decipher.final()
    } catch (error) {
      body.fill(0)
      throw error
    }
    return new Uint8Array(body.buffer, body.byteOffset, body.length)
  } finally {
    subkey.fill(0)
  }
}

const candidate: Cipher.Primitives = {
  keyLength: 32,
  nonceLength: xchacha20poly1305.nonceLength,
  encrypt,
  decrypt,
  randomBytes: Random.randomBytes,
}

/** Whether `candidate` seals a fixed vector exactly as `@noble/ciphers` does, and opens it again. */
const agreesWithNoble = (): boolean => {
  try {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1)
    const nonce = Uint8Array.from({ length: 24 }, (_, i) => 255 - i * 3)
    const plaintext = Uint8Array.from({ length: 100 }, (_, i) => i)
    const aad = Uint8Array.from([1, 2, 3])
    const expected = xchacha20poly1305(key, nonce, aad).encrypt(plaintext)
    const sealed = encrypt(key, nonce, plaintext, aad)
    const opened = decrypt(key, nonce, sealed, aad)
    return (
      sealed.length === expected.length &&
      sealed.every((byte, i) => byte === expected[i]) &&
      opened.every((byte, i) => byte === plaintext[i])
    )
  } catch {
    return false
  }
}

/** The native primitives, or `undefined` where this runtime's `node:crypto` cannot give the same bytes. */
export const primitives: Cipher.Primitives | undefined = agreesWithNoble() ? candidate : undefined
