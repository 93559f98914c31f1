/**
 * @coffer/adapter-crypto: the Cipher port on `@noble/ciphers` (envelope encryption with XChaCha20-Poly1305).
 */
export * as XChaCha20Poly1305 from "./XChaCha20Poly1305.js"
