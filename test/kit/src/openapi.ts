/**
 * Holding an app's answers to its own OpenAPI document. `conformance(app)` reads the document the app serves at
 * `/openapi.json`; `check` then finds the operation a request reached (its method and the most specific path
 * template that matches, literal segments first), and requires the answer's status to be documented and its body
 * to match the documented schema. The JSON Schemas are read back into Effect Schemas
 * (`SchemaRepresentation.fromJsonSchemaDocument`) and the body is decoded with them, excess properties refused, so
 * a field the document does not declare is as much a failure as a missing one.
 *
 * A request the app took (any status below 400) is held to the document too: its JSON body must match the
 * documented request body, keys the document does not name allowed (the document says they are ignored). So a rule
 * the document states more strictly than the service applies it fails the first test whose request shows it.
 *
 * The in-process services of this kit (`schemasService.ts`, `secretsService.ts`) check every answer they get, so
 * every app test is also a conformance test; `seen` says which operations and statuses were checked.
 */
import * as JsonSchema from "effect/JsonSchema"
import * as Schema from "effect/Schema"
import * as SchemaRepresentation from "effect/SchemaRepresentation"

interface Operation {
  readonly requestBody?: { readonly content?: Readonly<Record<string, { schema: unknown }>> }
  readonly responses: Readonly<Record<string, { readonly content?: Readonly<Record<string, { schema: unknown }>> }>>
}

interface Document {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema.JsonSchema>> }
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

/** A template's segments: a string is literal, `undefined` a parameter. */
const segmentsOf = (template: string) =>
  template.split("/").map((segment) => (segment.startsWith("{") ? undefined : segment))

const matches = (template: ReadonlyArray<string | undefined>, segments: ReadonlyArray<string>) =>
  template.length === segments.length &&
  template.every((segment, index) => segment === undefined || segment === segments[index])

/** More literal segments, earlier, wins: `/api/{platform}/versions` over `/api/{platform}/{version}`. */
const specificity = (template: ReadonlyArray<string | undefined>) =>
  template.map((segment) => (segment === undefined ? "0" : "1")).join("")

export interface Conformance {
  /**
   * Throws when the answer is not what the document says this request may get, or when the app took a JSON body
   * (`requestBody`, as sent) that the document says it does not take.
   */
  readonly check: (method: string, url: string, answer: Answer, requestBody?: string) => Promise<void>
  /** `METHOD /template STATUS` of every answer checked. */
  readonly seen: ReadonlySet<string>
  readonly document: () => Promise<Document>
}

export const conformance = (app: {
  readonly request: (input: string, init?: RequestInit) => Response | Promise<Response>
}): Conformance => {
  let loaded: Promise<Document> | undefined
  const document = () => {
    loaded ??= Promise.resolve(app.request("http://coffer.test/openapi.json")).then(
      (response) => response.json() as Promise<Document>,
    )
    return loaded
  }
  const validators = new Map<string, (body: unknown) => void>()
  const seen = new Set<string>()

  const validatorOf = (doc: Document, key: string, schema: unknown, excess: "error" | "ignore" = "error") => {
    let validate = validators.get(key)
    if (validate === undefined) {
      const definitions = Object.fromEntries(
        Object.entries(doc.components.schemas).map(([name, definition]) => [
          name,
          JsonSchema.fromSchemaOpenApi3_1(definition).schema,
        ]),
      )
      const root = JsonSchema.fromSchemaOpenApi3_1(schema as JsonSchema.JsonSchema)
      const decoder = SchemaRepresentation.fromJsonSchemaDocument({ ...root, definitions }, { patterns: "apply" })
      const decode = Schema.decodeUnknownResult(decoder as Schema.Codec<unknown>, { onExcessProperty: excess })
      validate = (body) => {
        const result = decode(body)
        if (result._tag === "Failure")
          throw new Error(`${key}: the body does not match the document: ${result.failure}`)
      }
      validators.set(key, validate)
    }
    return validate
  }

  /** A JSON body the app took must be one the document admits. */
  const checkRequest = (doc: Document, operation: Operation, key: string, requestBody: string) => {
    const schema = operation.requestBody?.content?.["application/json"]?.schema
    if (schema === undefined) return
    let body: unknown
    try {
      body = JSON.parse(requestBody)
    } catch {
      return
    }
    validatorOf(doc, `${key} (its request)`, schema, "ignore")(body)
  }

  const check = async (method: string, url: string, answer: Answer, requestBody?: string) => {
    const asked = method.toLowerCase()
    if (asked === "options") return
    const doc = await document()
    const path = new URL(url, "http://coffer.test").pathname
    const segments = path.split("/")
    // A `HEAD` is its path's own operation where the document has one (a refusal), else its `GET` without the body.
    const verbOf = (template: string) => (asked === "head" && doc.paths[template]?.head === undefined ? "get" : asked)
    const candidates = Object.keys(doc.paths)
      .map((template) => ({ template, segments: segmentsOf(template) }))
      .filter(
        (candidate) =>
          doc.paths[candidate.template]?.[verbOf(candidate.template)] !== undefined &&
          matches(candidate.segments, segments),
      )
      .sort((a, b) => specificity(b.segments).localeCompare(specificity(a.segments)))
    const found = candidates[0]
    // No route has this method and path: the app's not-found answer, which no operation describes.
    if (found === undefined) return
    const verb = verbOf(found.template)
    const key = `${verb.toUpperCase()} ${found.template} ${answer.status}`
    const operation = doc.paths[found.template]![verb]!
    if (requestBody !== undefined && answer.status < 400) checkRequest(doc, operation, key, requestBody)
    const response = operation.responses[String(answer.status)]
    if (response === undefined) throw new Error(`${key}: this status is not documented (body ${answer.text})`)
    seen.add(key)
    const content = Object.entries(response.content ?? {})
    if (content.length === 0) {
      if (answer.text !== "") throw new Error(`${key}: documented without a body, answered ${answer.text}`)
      return
    }
    const contentType = answer.headers.get("content-type") ?? ""
    const entry = content.find(([type]) => contentType.startsWith(type))
    if (entry === undefined) throw new Error(`${key}: answered ${contentType}, documented ${content.map(([t]) => t)}`)
    if (entry[0] !== "application/json" || method.toUpperCase() === "HEAD") return
    validatorOf(doc, key, entry[1].schema)(JSON.parse(answer.text))
  }

  return { check, seen, document }
}
