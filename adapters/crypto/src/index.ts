/**
 * @coffer/adapter-crypto: the Cipher port on `@noble/ciphers` (envelope encryption with XChaCha20-Poly1305), and
 * the Hasher port on `node:crypto`.
 */
export * as NodeHasher from "./NodeHasher.js"
export * as XChaCha20Poly1305 from "./XChaCha20Poly1305.js"
