/**
 * How a `coffer` user command fails, and the exit code each failure ends with (README "Exit codes"). One error
 * type with a `kind` rather than five: every command maps to the same table, and the message is always one line
 * fit for stderr. Messages never carry a token or a secret value.
 */
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

/** The failure kinds, each with its exit code; `run` exits with its child's own code instead. */
export const EXIT_CODES = {
  usage: 1,
  auth: 2,
  notFound: 3,
  refused: 4,
  server: 5,
} as const

export type FailureKind = keyof typeof EXIT_CODES

export class CofferFailure extends Schema.TaggedError<CofferFailure>()("CofferFailure", {
  kind: Schema.Literals(["usage", "auth", "notFound", "refused", "server"]),
  message: Schema.String,
  /** The HTTP status the server answered, when it answered one: `run --fallback` acts on the exact status. */
  status: Schema.optional(Schema.Number),
  /** The machine-readable `code` beside the server's `error`, when it sent one (a login poll's `slow_down`). */
  code: Schema.optional(Schema.String),
}) {}

export const usage = (message: string) => new CofferFailure({ kind: "usage", message })
export const authFailure = (message: string) => new CofferFailure({ kind: "auth", message })
export const notFound = (message: string) => new CofferFailure({ kind: "notFound", message })
export const refused = (message: string) => new CofferFailure({ kind: "refused", message })
export const serverFailure = (message: string) => new CofferFailure({ kind: "server", message })

/** The kind an HTTP error status stands for (seed 001 §7 and seed 000 §7). */
export const kindOfStatus = (status: number): FailureKind => {
  if (status === 401) return "auth"
  if (status === 404) return "notFound"
  if (status === 403 || status === 409 || status === 429) return "refused"
  if (status >= 500) return "server"
  return "usage"
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** `secrets[3].value`: where in a document a problem is. */
const pathText = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>) =>
  path
    .map((segment) => (typeof segment === "object" ? segment.key : segment))
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("")

/**
 * A schema's refusal as one line: its first problem and where it is (`Expected string at secret.value`), and how
 * many more there are. Never the value found there: decoding runs without `reportInput`, so no message quotes its
 * input, and a server's answer or a config file may hold a secret or a token.
 */
export const describeIssue = (error: Schema.SchemaError): string => {
  const [first, ...more] = formatIssues(error.issue).issues
  if (first === undefined) return "not what was expected"
  const where = first.path === undefined || first.path.length === 0 ? "" : ` at ${pathText(first.path)}`
  return `${first.message}${where}${more.length === 0 ? "" : ` (and ${more.length} more)`}`
}
