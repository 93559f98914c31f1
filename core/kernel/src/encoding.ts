/**
 * Byte encodings used by credentials and ciphertexts. Web-standard only, so the core runs anywhere.
 */

export const toBase64Url = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
}

const BASE64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const BASE64URL_VALUES = new Int8Array(128).fill(-1)
for (let i = 0; i < BASE64URL_ALPHABET.length; i++) BASE64URL_VALUES[BASE64URL_ALPHABET.charCodeAt(i)] = i

/**
 * Base64url without padding in one pass over the text (an export opens thousands of blobs; `atob` and a
 * per-character callback cost several times more). A length that leaves one character over is not base64;
 * `canonical` also refuses non-zero unused bits in the last character, so that only `toBase64Url`'s own output
 * is accepted and no two texts stand for the same bytes.
 */
const decodeBase64Url = (text: string, canonical: boolean): Uint8Array | undefined => {
  const length = text.length
  if (length % 4 === 1) return undefined
  const out = new Uint8Array((length * 3) >> 2)
  let buffer = 0
  let bits = 0
  let written = 0
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    const value = code < 128 ? BASE64URL_VALUES[code]! : -1
    if (value < 0) return undefined
    buffer = ((buffer << 6) | value) & 0xffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[written++] = buffer >> bits
    }
  }
  if (canonical && (buffer & ((1 << bits) - 1)) !== 0) return undefined
  return out
}

/** Decodes base64url without padding; `undefined` when the text is not base64url. */
export const fromBase64Url = (text: string): Uint8Array | undefined => decodeBase64Url(text, false)

/** Decodes base64url exactly as `toBase64Url` writes it; `undefined` for any other text, however close. */
export const fromCanonicalBase64Url = (text: string): Uint8Array | undefined => decodeBase64Url(text, true)

/** Decodes standard base64 (as operators paste keys); `undefined` when it is not base64. */
export const fromBase64 = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0))
  } catch {
    return undefined
  }
}

export const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

export const utf8 = new TextEncoder()
export const fromUtf8 = new TextDecoder("utf-8", { fatal: true })
