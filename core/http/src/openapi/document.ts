/**
 * The OpenAPI 3.1 document of an app, built from the `Endpoint`s its routes were registered with
 * (`./route.ts`). Every Schema (request bodies, responses, query parameters) goes through Effect's own JSON Schema
 * compiler in one pass, as `effect/unstable/httpapi`'s generator does: schemas annotated with an `identifier`
 * become `components.schemas`, shared by every operation that answers them.
 *
 * Request bodies are described open (keys the Schema does not name are ignored by the decoder, and the seeds allow
 * them); responses closed (`additionalProperties: false`), so a field that a view does not declare, a secret value
 * in a list for one, fails the conformance test instead of slipping out.
 *
 * The errors every route of a kind answers are added here, as the shared stack (`../app/base.ts`) and the error
 * table (`../errors.ts`) give them: 400 for all (a query value holding a NUL), and 413 and 415 for a write; 401, 429
 * and 503 behind a credential; 403 where a token is refused or a cookie write may come from another origin; 412 (and its `Coffer-Expected-User` header)
 * wherever a session is taken, 404 where a path parameter may name nothing, 500 for all.
 */
import * as JsonSchema from "effect/JsonSchema"
import * as Schema from "effect/Schema"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import { BACKCHANNEL_LOGOUT_PATH } from "../auth/oidc.js"
import { EXPECTED_USER_HEADER } from "../auth/session.js"
import { ErrorBody } from "../errors.js"
import { MAX_JSON_DEPTH } from "../middleware/jsonBody.js"
import {
  type Answer,
  type Credential,
  type Endpoint,
  openApiPath,
  pathParameters,
  type ResponseSpec,
} from "./endpoint.js"

export interface DocumentInfo {
  readonly title: string
  readonly version: string
  readonly description: string
  /** What the bearer credential is on this service ("API token `cfs_…`", "API key `cfk_…`"). */
  readonly bearer: string
  /** The session cookie's name (without the `__Host-` prefix it takes on an https origin). */
  readonly sessionCookie: string
  /** Headers any answer to a request made with the bearer credential may carry, by name, with what they say. */
  readonly bearerAnswerHeaders?: Readonly<Record<string, string>>
}

type Json = Readonly<Record<string, unknown>>

/** What each status means, for responses that say nothing more. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: "OK",
  201: "Created",
  302: "Redirect",
  304: "Not modified: the `If-None-Match` tag is current",
  400:
    "Invalid input: a bad or missing body field or query parameter, malformed JSON, JSON nested deeper than " +
    "100 levels",
  401: "No credential, or an unknown, revoked or expired one",
  403: "Not allowed for this role, credential or origin",
  404: "Not found, or out of the caller's reach",
  405: "`HEAD` on a route that answers a secret value, which is read with `GET` only: every read is audited",
  409: "Conflict with the current state",
  412:
    "The request names the person it was made for (`Coffer-Expected-User`) and the session cookie is someone " +
    "else's: nothing was done",
  413: "Request body larger than 1 MiB, or a value over its limit",
  415:
    "The body is not `application/json`, declares a `charset` other than UTF-8, or comes in a `Content-Encoding` " +
    "other than `identity`",
  429: "Too many attempts from this client; retry after `Retry-After` seconds",
  500: "Unexpected server error; no detail is given",
  503: "A store (database or cache) is unavailable; checks fail closed",
}

/** The headers an error answer carries besides every answer's. */
const ERROR_HEADERS: Readonly<Record<number, Readonly<Record<string, string>>>> = {
  405: { Allow: "The methods the path answers, `OPTIONS` among them: what an `OPTIONS` request names" },
  429: { "Retry-After": "Seconds until the client may try again" },
}

const statusText = (status: number) => STATUS_TEXT[status] ?? "Answer"

/** Response headers by name, each with what it says, as OpenAPI header objects. */
const headersOf = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: "string" } }]),
  )

const isSchema = (answer: Answer): answer is Schema.Top => Schema.isSchema(answer)

const specOf = (status: number, answer: Answer): ResponseSpec =>
  isSchema(answer) ? { description: statusText(status), schema: answer } : answer

/** The error statuses of `endpoint`, with the body Schema of each. */
const errorsOf = (endpoint: Endpoint<unknown>): ReadonlyMap<number, Schema.Top> => {
  const errors = new Map<number, Schema.Top>()
  const add = (status: number, schema: Schema.Top = ErrorBody) => {
    if (!errors.has(status) || schema !== ErrorBody) errors.set(status, schema)
  }
  const write = endpoint.method !== "GET"
  const session = endpoint.security.includes("session")
  if (endpoint.body !== undefined || write) for (const status of [400, 413, 415]) add(status)
  // A query value holding a NUL (`../request/query.ts`), checked on every request whatever its parameters.
  add(400)
  if (endpoint.security.length > 0) add(401)
  if (session) add(412)
  // Credentials a person or a client holds are checked against a store, and failures are rate-limited.
  if (session || endpoint.security.includes("bearer")) for (const status of [429, 503]) add(status)
  // A bearer credential where only sessions are accepted; and any write that carries the session cookie (a
  // sign-in, always) from a foreign origin (`../auth/sameOrigin.ts`), but the cookieless back-channel logout.
  if ((session && !endpoint.security.includes("bearer")) || (write && endpoint.path !== BACKCHANNEL_LOGOUT_PATH)) {
    add(403)
  }
  // A path parameter that names nothing (or nothing within reach).
  if (pathParameters(endpoint.path).length > 0) add(404)
  for (const error of endpoint.errors ?? []) {
    if (typeof error === "number") add(error)
    else add(error[0], error[1])
  }
  add(500)
  return new Map([...errors].sort(([a], [b]) => a - b))
}

/**
 * Compiles `schemas` to OpenAPI 3.1 JSON Schemas in one pass, so identified schemas become shared components.
 * `closed`: whether objects refuse keys they do not name.
 */
const compile = (schemas: ReadonlyArray<Schema.Top>, closed: boolean) => {
  if (schemas.length === 0) return { schemas: [], definitions: {} }
  const asts = schemas.map((schema) => Schema.toCodecJson(schema).ast)
  const representations = SchemaRepresentation.toRepresentations(asts as [(typeof asts)[0], ...typeof asts])
  return JsonSchema.toMultiDocumentOpenApi3_1(
    SchemaRepresentation.toJsonSchemaMultiDocument(representations, {
      onExcessProperty: closed ? "error" : "ignore",
    }),
  )
}

/** Collects schemas to compile, and hands back a slot that is filled once they are. */
class Compiler {
  private readonly pending: Array<{ readonly schema: Schema.Top; readonly target: Record<string, unknown> }> = []
  constructor(private readonly closed: boolean) {}

  schema(schema: Schema.Top): Record<string, unknown> {
    const target: Record<string, unknown> = {}
    this.pending.push({ schema, target })
    return target
  }

  run(components: Record<string, unknown>): void {
    const compiled = compile(
      this.pending.map((entry) => entry.schema),
      this.closed,
    )
    this.pending.forEach((entry, index) => {
      Object.assign(entry.target, compiled.schemas[index])
    })
    for (const [name, definition] of Object.entries(compiled.definitions)) {
      const known = components[name]
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(definition)) {
        throw new Error(`Two different schemas are named ${name}`)
      }
      components[name] = definition
    }
  }
}

/** The header a session-cookie request may name its person with (`../auth/session.ts`). */
const EXPECTED_USER = {
  name: EXPECTED_USER_HEADER,
  in: "header",
  required: false,
  description:
    "With the session cookie: the user id this request was made for, percent-encoded. When the session is " +
    "someone else's (another person signed in in the same browser), the request is refused with 412 before " +
    "anything is done. Ignored with a bearer credential.",
  schema: { type: "string" },
}

const securityOf = (credentials: ReadonlyArray<Credential>) => credentials.map((credential) => ({ [credential]: [] }))

const operationId = (method: string, path: string) =>
  `${method.toLowerCase()}${openApiPath(path)
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("")}`

/**
 * What `HEAD` answers, said once for the document: an operation per `GET` would double the reference for a method
 * whose answer is the `GET`'s without its body. Only the refusals (`Endpoint.refusesHead`) are operations.
 */
const headNote = (refusals: number) =>
  "Every `GET` also answers `HEAD`: the same status and headers, without the body" +
  (refusals === 0 ? "." : ", except the reads of secret values, whose `HEAD` operations say it is refused (405).") +
  `\n\n${OPTIONS_NOTE}`

/** What `OPTIONS` answers (`../app/base.ts`), said once for the document like `HEAD`. */
const OPTIONS_NOTE =
  "`OPTIONS` on a path a route takes answers 204 with `Allow` naming its methods, `OPTIONS` among them, and a " +
  "method the path does not answer gets 405 with the same `Allow` (404 for both where no route is); a CORS " +
  "preflight from an origin listed in `CORS_ORIGIN` also gets the `Access-Control-Allow-*` headers, any other " +
  "origin's none."

/** The `HEAD` of a `GET` that refuses it: 405 before any credential is read, naming the methods in `Allow`. */
const headRefusal = (endpoint: Endpoint<unknown>, parameters: ReadonlyArray<unknown> | undefined) => ({
  operationId: operationId("HEAD", endpoint.path),
  summary: `${endpoint.summary}: refused with HEAD`,
  tags: [endpoint.tag],
  security: [],
  ...(parameters === undefined ? {} : { parameters }),
  responses: Object.fromEntries(
    [400, 405, 500].map((status) => [
      String(status),
      {
        description: statusText(status),
        ...(ERROR_HEADERS[status] === undefined ? {} : { headers: headersOf(ERROR_HEADERS[status]) }),
      },
    ]),
  ),
})

/** The OpenAPI 3.1 document of these endpoints. */
export const openApiDocument = (endpoints: ReadonlyArray<Endpoint<unknown>>, info: DocumentInfo): Json => {
  const requests = new Compiler(false)
  const responses = new Compiler(true)
  const paths: Record<string, Record<string, unknown>> = {}
  let refusals = 0
  for (const endpoint of endpoints) {
    const parameters = [
      ...pathParameters(endpoint.path).map((name) => {
        const parameter = endpoint.params?.[name]
        return {
          name,
          in: "path",
          required: true,
          description: typeof parameter === "object" ? parameter.description : parameter,
          schema: typeof parameter === "object" ? parameter.schema : { type: "string" },
        }
      }),
      ...Object.entries(endpoint.query ?? {}).map(([name, parameter]) => ({
        name,
        in: "query",
        required: false,
        description: parameter.description,
        schema: requests.schema(parameter.schema),
      })),
      ...(endpoint.security.includes("session") ? [EXPECTED_USER] : []),
    ]
    const answers: Record<string, unknown> = {}
    const bearerHeaders = endpoint.security.includes("bearer") ? (info.bearerAnswerHeaders ?? {}) : {}
    const describe = (status: number, spec: ResponseSpec) => {
      const headers = { ...spec.headers, ...bearerHeaders }
      answers[String(status)] = {
        description: spec.description,
        ...(Object.keys(headers).length === 0 ? {} : { headers: headersOf(headers) }),
        ...(spec.schema === undefined
          ? spec.contentType === undefined
            ? {}
            : { content: { [spec.contentType]: { schema: { type: "string" } } } }
          : { content: { [spec.contentType ?? "application/json"]: { schema: responses.schema(spec.schema) } } }),
      }
    }
    for (const [status, answer] of Object.entries(endpoint.responses))
      describe(Number(status), specOf(Number(status), answer))
    for (const [status, schema] of errorsOf(endpoint)) {
      describe(status, {
        description: statusText(status),
        schema,
        ...(ERROR_HEADERS[status] === undefined ? {} : { headers: ERROR_HEADERS[status] }),
      })
    }
    const body = endpoint.body
    const form = endpoint.form
    const operation = {
      operationId: operationId(endpoint.method, endpoint.path),
      summary: endpoint.summary,
      ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
      tags: [endpoint.tag],
      security: securityOf(endpoint.security),
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(form === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: {
                "application/x-www-form-urlencoded": {
                  schema: {
                    type: "object",
                    properties: Object.fromEntries(
                      Object.entries(form).map(([name, description]) => [name, { type: "string", description }]),
                    ),
                    required: Object.keys(form),
                  },
                },
              },
            },
          }),
      ...(body === undefined
        ? {}
        : {
            requestBody: {
              required: endpoint.bodyOptional !== true,
              description: `JSON, at most 1 MiB, nested at most ${MAX_JSON_DEPTH} levels; keys not listed are ignored.`,
              content: { "application/json": { schema: requests.schema(body as unknown as Schema.Top) } },
            },
          }),
      responses: answers,
    }
    const path = openApiPath(endpoint.path)
    paths[path] = { ...paths[path], [endpoint.method.toLowerCase()]: operation }
    if (endpoint.refusesHead === true) {
      refusals += 1
      paths[path]!.head = headRefusal(endpoint, operation.parameters)
    }
  }
  const schemas: Record<string, unknown> = {}
  requests.run(schemas)
  responses.run(schemas)
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: `${info.description}\n\n${headNote(refusals)}` },
    // The instance that serves the document: its paths are relative to wherever it was fetched from.
    servers: [{ url: "/", description: "This instance" }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: info.sessionCookie,
          description:
            "The session cookie set by a sign-in (OIDC or the development login). Writes carrying it need " +
            "`Content-Type: application/json` and, when an `Origin` is sent, a same or allowed origin.",
        },
        bearer: { type: "http", scheme: "bearer", description: info.bearer },
        metrics: { type: "http", scheme: "bearer", description: "The operator's `COFFER_METRICS_TOKEN`" },
      },
    },
  }
}
