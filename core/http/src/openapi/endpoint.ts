/**
 * What a route is, as data: its method and path, what it reads (path parameters, query, a JSON body decoded by a
 * Schema), what it answers per status (a Schema per JSON body), and which credentials it accepts. Route files
 * declare one `Endpoint` per route and register it with `route` (`./route.ts`), which decodes the body with the
 * endpoint's own Schema; the OpenAPI document (`./document.ts`) is built from the same values, so the two cannot
 * drift apart.
 */
import type * as Schema from "effect/Schema"

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/**
 * The credentials a route accepts (any one of them): the session cookie of a sign-in, or an
 * `Authorization: Bearer` header (an API token on the schemas service, an API key on the secrets service), or the
 * operator's metrics token (`COFFER_METRICS_TOKEN`, also a bearer header). An empty list: public.
 */
export type Credential = "session" | "bearer" | "metrics"

/** A response that is not a JSON body described by a Schema: a redirect, a file, an empty answer. */
export interface ResponseSpec {
  readonly description: string
  /** The body's Schema; absent for a response without a body. */
  readonly schema?: Schema.Top | undefined
  /** Default `application/json` when there is a schema. */
  readonly contentType?: string | undefined
  /** Response headers worth knowing, by name, with what they carry. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A JSON body's Schema, or the whole description of a response. */
export type Answer = Schema.Top | ResponseSpec

/** A path parameter that is more than a string: its description and its JSON Schema. */
export interface PathParameter {
  readonly description: string
  readonly schema: Readonly<Record<string, unknown>>
}

/**
 * A path parameter read as a whole number by `parseWholeNumber` (`@coffer/kernel`): plain digits from 1, without a
 * sign or leading zeros, as a generated client writes an integer.
 */
export const wholeNumberParameter = (description: string): PathParameter => ({
  description,
  schema: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
})

export interface QueryParameter {
  readonly schema: Schema.Top
  readonly description: string
}

export interface Endpoint<B = unknown> {
  readonly method: Method
  /** Hono's form, `/api/:platform/versions`; the document writes `{platform}`. */
  readonly path: string
  readonly summary: string
  readonly description?: string | undefined
  /** The group the reference lists it under. */
  readonly tag: string
  readonly security: ReadonlyArray<Credential>
  /** What each `:name` of the path is: its description (a string), or a `PathParameter`. */
  readonly params?: Readonly<Record<string, string | PathParameter>> | undefined
  readonly query?: Readonly<Record<string, QueryParameter>> | undefined
  /** The JSON body, decoded with this Schema before the route trusts any of it. */
  readonly body?: Schema.Decoder<B> | undefined
  /**
   * A form body (`application/x-www-form-urlencoded`) the route reads itself, where a protocol says form and not
   * JSON: each required field with what it carries.
   */
  readonly form?: Readonly<Record<string, string>> | undefined
  /** The body may be left out entirely (it then reads as `{}`). */
  readonly bodyOptional?: boolean | undefined
  /** Successful answers by status. */
  readonly responses: Readonly<Record<number, Answer>>
  /**
   * Error statuses this route answers besides the ones every route of its kind does (`./document.ts` adds 400,
   * 413 and 415 for a body, 401, 429 and 503 for a credential, 500 for all): a status, or a status with the body
   * Schema when it is more than `{ error }`.
   */
  readonly errors?: ReadonlyArray<number | readonly [number, Schema.Top]> | undefined
  /**
   * A `GET` that refuses `HEAD` with 405 before anything else (it answers a secret value, and every such read is
   * audited). Every other `GET` answers `HEAD` as Hono does: its status and headers, without the body.
   */
  readonly refusesHead?: boolean | undefined
}

/** Declares an endpoint; the identity function, there for the body type's inference. */
export const endpoint = <B = never>(spec: Endpoint<B>): Endpoint<B> => spec

/** The path parameter names of a Hono path, in order. */
export const pathParameters = (path: string): ReadonlyArray<string> =>
  path
    .split("/")
    .filter((segment) => segment.startsWith(":"))
    .map((segment) => segment.slice(1))

/** `/api/:platform/:version` as OpenAPI writes it: `/api/{platform}/{version}`. */
export const openApiPath = (path: string): string =>
  path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? `{${segment.slice(1)}}` : segment))
    .join("/")
