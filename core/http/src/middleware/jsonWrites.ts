/**
 * Writes that carry a body must say `Content-Type: application/json` (DESIGN.md "Security decisions"):
 * a browser can send a cross-site form post (`text/plain`, `application/x-www-form-urlencoded`,
 * `multipart/form-data`) without a preflight, but not a JSON one, so this closes that door for every route.
 * Anything else answers 415 `{ error }`. Paths that must accept another type (the form-encoded back-channel
 * logout) are listed in `exempt`.
 *
 * A request "carries a body" when its framing says so (`Content-Length` above 0, or `Transfer-Encoding`) or
 * when it declares any content type; a bodyless `POST /logout` passes.
 *
 * Such a body must also come as sent: no route decompresses one, so a `Content-Encoding` other than `identity`
 * (`gzip`, …) answers 415 too, rather than reading compressed bytes as JSON (which said "not valid UTF-8") or
 * taking a body whose declared coding was ignored. Likewise a `charset` other than UTF-8: JSON is UTF-8 (RFC 8259
 * §8.1) and is read as such, so `charset=latin1` would have its `é` stored as something else (`unreadableJson`,
 * which the JSON helper checks too).
 *
 * A request with a bearer credential is left to its route: no browser sends one by itself (it adds cookies, and
 * HTTP Basic credentials it has cached, never a bearer token), so it is no cross-site form. Its route checks the
 * caller first and the body where it reads it (`readJson`, which refuses the same types): a token's write is 403
 * whatever its body (seed 000 §5 rule 2), a read key's write 403, a revoked key 401.
 */
import { UnsupportedMediaType } from "@coffer/kernel"
import type { Context, MiddlewareHandler } from "hono"
import { bearerToken } from "../auth/credentials.js"
import { errorResponse } from "../errors.js"
import { header } from "../request/header.js"

/** The methods whose requests carry a body. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** `application/json`, with or without parameters such as `charset`, in any letter case. */
export const isJsonContentType = (value: string | undefined): boolean =>
  value !== undefined && value.split(";", 1)[0]!.trim().toLowerCase() === "application/json"

/** The `charset` parameter of a content type, unquoted and in lower case, or `undefined` without one. */
const charsetOf = (contentType: string): string | undefined => {
  for (const parameter of contentType.split(";").slice(1)) {
    const [name, value = ""] = parameter.split("=", 2)
    if (name!.trim().toLowerCase() === "charset")
      return value
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase()
  }
  return undefined
}

const UTF_8 = new Set(["utf-8", "utf8"])

export const unsupportedMediaType = () => new UnsupportedMediaType({ message: "Content-Type must be application/json" })

/** Why a JSON body cannot be read as it was sent (a charset other than UTF-8, a content coding), if it cannot. */
export const unreadableJson = (c: Context): UnsupportedMediaType | undefined => {
  const charset = charsetOf(header(c, "Content-Type") ?? "")
  if (charset !== undefined && !UTF_8.has(charset)) {
    const message = `A JSON body is read as UTF-8: charset=${charset.slice(0, 40)} is not supported`
    return new UnsupportedMediaType({ message })
  }
  const coding = header(c, "Content-Encoding")?.trim()
  if (coding !== undefined && coding !== "" && coding.toLowerCase() !== "identity") {
    const message = `Content-Encoding ${coding} is not supported: send the body uncompressed`
    return new UnsupportedMediaType({ message })
  }
  return undefined
}

export interface JsonWritesOptions {
  /** Exact paths that accept other content types. */
  readonly exempt?: ReadonlyArray<string>
}

export const jsonWrites = (options: JsonWritesOptions = {}): MiddlewareHandler => {
  const exempt = new Set(options.exempt ?? [])
  return async (c, next) => {
    if (!WRITE_METHODS.has(c.req.method) || exempt.has(c.req.path)) return next()
    if (bearerToken(header(c, "Authorization") ?? "") !== undefined) return next()
    const contentType = header(c, "Content-Type")
    const framed = header(c, "Transfer-Encoding") !== undefined || Number(header(c, "Content-Length")) > 0
    if (contentType === undefined && !framed) return next()
    if (!isJsonContentType(contentType)) return errorResponse(c, unsupportedMediaType())
    const refusal = unreadableJson(c)
    return refusal === undefined ? next() : errorResponse(c, refusal)
  }
}
