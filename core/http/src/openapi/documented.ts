/**
 * Rules the use cases enforce, stated in the OpenAPI document as well.
 *
 * A request body's Schema decodes loosely where a use case checks the value itself (a name, a kind, a schema's
 * content) and refuses it with the seeds' own message: a Schema check would answer first, in its own words.
 * `documented` leaves decoding as it is and adds a JSON Schema fragment to what the document shows, so that a
 * client generated from the document, or a person reading it, knows the rule before sending. The fragments are
 * built from the rules' own constants and patterns; the test kit holds every body the services take in the tests
 * to its documented Schema, so a fragment stricter than its rule fails there.
 */
import type * as JsonSchema from "effect/JsonSchema"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/** Marks the filters `documented` makes: they take every value, and only the document reads them. */
const STATEMENT = "coffer/documented"

/** `schema`, decoding as before, with `fragment` added to its JSON Schema. */
export const documented = <S extends Schema.Top>(schema: S, fragment: JsonSchema.JsonSchema): S["Rebuild"] =>
  schema.check(Schema.makeFilter(() => true, { toJsonSchema: () => fragment, [STATEMENT]: true }))

/** Whether `schema` decodes more loosely than its document says, by `documented`. */
export const isDocumented = (schema: { readonly ast: SchemaAST.AST }): boolean =>
  (schema.ast.checks ?? []).some((check) => check.annotations?.[STATEMENT] === true)

/**
 * Any value, taken as it is, like `Schema.Unknown`, but whose JSON form is itself: the document is compiled from
 * the JSON form, where `Schema.Unknown` is replaced by a JSON value without its checks, so a `documented` fragment
 * on it would not show. (`Schema.Json` would keep them too, but walks the whole value on every decode.)
 */
export const AnyValue = Schema.declare((_input: unknown): _input is unknown => true, {
  expected: "any JSON value",
  toCodecJson: () => undefined,
})

/**
 * A label (`@coffer/kernel` `parseLabel`: a project's, an API key's or a token's name): a string the use case trims
 * and refuses with its own message when it is empty, longer than `maxLength` code points, or holds control or
 * format characters. Decoded as any string; the document states the length.
 */
export const Label = (maxLength: number, description?: string) =>
  documented(Schema.String, { minLength: 1, maxLength }).annotate({
    description:
      (description === undefined ? "" : `${description}. `) +
      `1 to ${maxLength} characters once surrounding spaces are trimmed; no control or format characters`,
  })
