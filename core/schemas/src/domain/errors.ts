/**
 * The failures of the pure schemas domain: a version string that cannot be added, schema content that is not a
 * plain JSON object, a malformed or unresolvable `@extends` reference, and an inheritance cycle. Each is a value
 * with the data a caller needs and a human `message`; `core/http` maps all of them to 400 `{ error: message }`.
 *
 * Messages are derived from the fields (getters) so that the text and the data can never disagree.
 */
import { quote } from "@coffer/kernel"
import * as Schema from "effect/Schema"

/** A version string rejected by the rules for adding a version (seed 000 §2). */
export class InvalidVersion extends Schema.TaggedError<InvalidVersion>()("InvalidVersion", {
  /** The string as received, untrimmed. */
  version: Schema.String,
  /** Why it was rejected, phrased to follow "Invalid version …:". */
  reason: Schema.String,
}) {
  override get message(): string {
    return `Invalid version ${quote(this.version)}: ${this.reason}`
  }
}

/** Schema content that is not a plain JSON object, or whose `@extends` has the wrong shape. */
export class InvalidSchemaContent extends Schema.TaggedError<InvalidSchemaContent>()("InvalidSchemaContent", {
  /** `platform/version` of the offending schema when known (a stored parent, say). */
  schema: Schema.optional(Schema.String),
  reason: Schema.String,
}) {
  override get message(): string {
    return this.schema === undefined
      ? `Invalid schema content: ${this.reason}`
      : `Invalid schema content in ${this.schema}: ${this.reason}`
  }
}

/** An `@extends` reference that is not of the form `<platform>` or `<platform>/<spec>`. */
export class InvalidReference extends Schema.TaggedError<InvalidReference>()("InvalidReference", {
  /** The reference as written. */
  reference: Schema.String,
  reason: Schema.String,
}) {
  override get message(): string {
    return `Invalid @extends reference ${quote(this.reference)}: ${this.reason}`
  }
}

/** A well-formed reference that selects nothing: the platform, the exact version or any range match is missing. */
export class Unresolved extends Schema.TaggedError<Unresolved>()("Unresolved", {
  /** The reference as written. */
  reference: Schema.String,
  /** What is missing, phrased to follow the reference. */
  reason: Schema.String,
  /** `platform/version` of the schema whose content holds the reference, once resolution knows it. */
  referencedBy: Schema.optional(Schema.String),
}) {
  override get message(): string {
    const where = this.referencedBy === undefined ? "" : ` in ${this.referencedBy}`
    return `Unresolved @extends reference ${quote(this.reference)}${where}: ${this.reason}`
  }
}

/** An inheritance cycle, reported with the path that closes it. */
export class CircularDependency extends Schema.TaggedError<CircularDependency>()("CircularDependency", {
  /** `platform/version` keys from the schema being resolved to the repeated one, e.g. `["a/1.0.0", "b/1.0.0", "a/1.0.0"]`. */
  chain: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return `Circular dependency detected: ${this.chain.join(" -> ")}`
  }
}

/** Which bound of `limits.ts` was reached. */
export const ResolutionLimitKind = Schema.Literals(["references", "duplicate", "depth", "output", "versions"])

/** A schema or a version list over one of the resolution limits (`limits.ts`): refused before it costs more. */
export class ResolutionLimit extends Schema.TaggedError<ResolutionLimit>()("ResolutionLimit", {
  limit: ResolutionLimitKind,
  /** What went over, phrased as a sentence that names the limit. */
  detail: Schema.String,
}) {
  override get message(): string {
    return this.detail
  }
}

/** Every failure resolution of one schema can produce. */
export type ResolveError = InvalidSchemaContent | InvalidReference | Unresolved | CircularDependency | ResolutionLimit
