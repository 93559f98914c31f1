/**
 * The text format of a sealed value (Cipher.ts for the envelope): `csv2.<dataKeyVersion>.<base64url payload>`, and
 * the version-less `csv1.<payload>` written before data keys had versions. Reading a header needs no key, so that a
 * reader can pick the data key version (and the associated data of the format) before opening the value.
 */

/** Format tag of a sealed value: what `seal` writes. */
export const SEALED_FORMAT = "csv2"
/** Format tag of a sealed value from before data keys had versions: opened, never written. */
export const LEGACY_SEALED_FORMAT = "csv1"

/** What a sealed value's header says, read without any key: its format and the data key version that sealed it. */
export interface SealedHeader {
  readonly format: typeof SEALED_FORMAT | typeof LEGACY_SEALED_FORMAT
  readonly dataKeyVersion: number
}

const SEALED_PATTERN = /^csv2\.([1-9][0-9]{0,8})\.([A-Za-z0-9_-]+)$/
const LEGACY_SEALED_PATTERN = /^csv1\.([A-Za-z0-9_-]+)$/

/** A data key version a `csv2` header can name: a positive integer, written plainly. */
export const isDataKeyVersion = (version: number) => Number.isInteger(version) && version >= 1 && version <= 999_999_999

/** Splits a sealed value into its header and its base64url payload; undefined when it is neither format. */
export const splitSealed = (sealed: string): (SealedHeader & { readonly payload: string }) | undefined => {
  const match = SEALED_PATTERN.exec(sealed)
  if (match?.[1] !== undefined && match[2] !== undefined) {
    return { format: SEALED_FORMAT, dataKeyVersion: Number(match[1]), payload: match[2] }
  }
  const legacy = LEGACY_SEALED_PATTERN.exec(sealed)
  return legacy?.[1] === undefined ? undefined : { format: LEGACY_SEALED_FORMAT, dataKeyVersion: 1, payload: legacy[1] }
}

/**
 * The header of a sealed value, read without any key, so that its reader can pick the data key version (and the
 * associated data of its format) before opening it; undefined when the text is not a sealed value. Only `open`
 * vouches for the header: a header that was altered names a key or AAD under which the value does not open.
 */
export const sealedHeader = (sealed: string): SealedHeader | undefined => {
  const split = splitSealed(sealed)
  return split === undefined ? undefined : { format: split.format, dataKeyVersion: split.dataKeyVersion }
}

/** The prefix every value sealed under this data key version starts with (to find values still under others). */
export const sealedPrefix = (dataKeyVersion: number): string => `${SEALED_FORMAT}.${dataKeyVersion}.`
