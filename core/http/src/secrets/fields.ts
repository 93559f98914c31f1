/**
 * Request fields several secrets routes take, each with its rule stated in the OpenAPI document (`documented`):
 * the use cases check them and refuse with seed 001's messages, so decoding stays loose.
 */
import { ENVIRONMENT_NAME_MAX_LENGTH, NAME_PATTERN, SECRET_KEY_MAX_LENGTH } from "@coffer/secrets"
import * as Schema from "effect/Schema"
import { documented } from "../openapi/documented.js"

const name = (maxLength: number) => documented(Schema.String, { minLength: 1, maxLength, pattern: NAME_PATTERN.source })

const RULE = "letters, digits, `_`, `-`, `.`; not `.` or `..`"

export const EnvironmentName = name(ENVIRONMENT_NAME_MAX_LENGTH).annotate({
  description: `At most ${ENVIRONMENT_NAME_MAX_LENGTH} characters: ${RULE}`,
})

export const SecretKey = name(SECRET_KEY_MAX_LENGTH)

/** What `SecretKey` is, for a description that says more. */
export const SECRET_KEY_RULE = `At most ${SECRET_KEY_MAX_LENGTH} characters: ${RULE}`
