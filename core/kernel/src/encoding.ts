/**
 * Byte encodings used by credentials and ciphertexts. Web-standard only, so the core runs anywhere.
 */

const BASE64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const BASE64URL_CODES = Uint8Array.from(BASE64URL_ALPHABET, (char) => char.charCodeAt(0))
const ascii = new TextDecoder("latin1")
/** Below this many characters a string is made from the codes at once; above, decoding the buffer costs less. */
const DECODED_FROM = 64

/**
 * Base64url without padding, in one pass over the bytes: every id, token and sealed value is written with it (a
 * write seals one and names two), where a binary string through `btoa` and three replacements cost several
 * times more.
 */
export const toBase64Url = (bytes: Uint8Array): string => {
  const length = bytes.length
  const whole = length - (length % 3)
  // Exactly as long as the text: 4 characters for each 3 bytes, 2 or 3 for the 1 or 2 left over.
  const codes = new Uint8Array(Math.ceil((length * 4) / 3))
  let written = 0
  for (let i = 0; i < whole; i += 3) {
    const group = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    codes[written++] = BASE64URL_CODES[group >> 18]!
    codes[written++] = BASE64URL_CODES[(group >> 12) & 63]!
    codes[written++] = BASE64URL_CODES[(group >> 6) & 63]!
    codes[written++] = BASE64URL_CODES[group & 63]!
  }
  if (whole < length) {
    const group = (bytes[whole]! << 16) | ((bytes[whole + 1] ?? 0) << 8)
    codes[written++] = BASE64URL_CODES[group >> 18]!
    codes[written++] = BASE64URL_CODES[(group >> 12) & 63]!
    if (length - whole === 2) codes[written++] = BASE64URL_CODES[(group >> 6) & 63]!
  }
  return codes.length < DECODED_FROM
    ? String.fromCharCode.apply(null, codes as unknown as Array<number>)
    : ascii.decode(codes)
}
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
/**
 * UTF-8 bytes back to exactly the text they encode: a leading U+FEFF (byte-order mark) is kept, where `fromUtf8`
 * drops it as a stream's signature would be. For stored text (a secret's value), which must read back as written.
 */
export const fromUtf8Exactly = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
