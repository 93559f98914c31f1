/**
 * Request fields several schemas routes take, each with its rule stated in the OpenAPI document (`documented`):
 * the use cases check them and refuse with seed 000's messages, so decoding stays loose.
 */
import {
  MAX_PLATFORM_NAME_LENGTH,
  MAX_VERSION_LENGTH,
  PLATFORM_KINDS,
  PLATFORM_NAME_PATTERN,
  RESERVED_PLATFORM_NAMES,
  VERSION_PATTERN,
} from "@coffer/schemas"
import * as Schema from "effect/Schema"
import { AnyValue, documented } from "../openapi/documented.js"

export const PlatformName = documented(Schema.String, {
  minLength: 1,
  maxLength: MAX_PLATFORM_NAME_LENGTH,
  pattern: PLATFORM_NAME_PATTERN.source,
}).annotate({
  description:
    `At most ${MAX_PLATFORM_NAME_LENGTH} characters: letters, digits, \`.\`, \`_\`, \`-\`, starting with a letter ` +
    `or digit; not ${RESERVED_PLATFORM_NAMES.map((name) => `\`${name}\``).join(" or ")}`,
})

export const Version = documented(Schema.String, {
  maxLength: MAX_VERSION_LENGTH,
  pattern: VERSION_PATTERN.source,
}).annotate({
  description: `A semantic version, build metadata allowed; at most ${MAX_VERSION_LENGTH} characters; never trimmed; major, minor and patch at most ${Number.MAX_SAFE_INTEGER}`,
})

export const Kind = documented(AnyValue, { enum: [...PLATFORM_KINDS] }).annotate({
  description: `One of ${PLATFORM_KINDS.join(", ")}`,
})

export const Content = documented(AnyValue, { type: "object" })
