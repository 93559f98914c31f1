/**
 * What an API key's id looks like: the audit log's `apiKey` filter checks the shape of the text it is given before
 * asking the store, so that a typo is a 400 rather than an empty log that looks like a key never used.
 *
 * Every key's id is made by `createApiKey` with the kernel's `Random.id`: 16 random bytes, base64url.
 */

const API_KEY_ID_SHAPE = /^[A-Za-z0-9_-]{22}$/

/** Whether `text` has the shape of an API key's id (not whether such a key exists, or ever did). */
export const isApiKeyId = (text: string): boolean => API_KEY_ID_SHAPE.test(text)
