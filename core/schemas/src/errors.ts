/**
 * The failures of the schemas use cases, beyond the pure domain's (`domain/errors.ts`): something named in a
 * request does not exist, a name or kind is not acceptable, a platform already exists, and a deletion that
 * dependents block. Each is a value with the data a caller needs and a `message` shown as is; `core/http`
 * maps every one of them to a status in its one error table.
 *
 * Messages are derived from the fields (getters) so that the text and the data can never disagree. Names
 * coming from a request are quoted with the kernel's `quote`: odd characters cannot bend the sentence, and a long
 * name comes back cut short.
 */
import { quote } from "@coffer/kernel"
import * as Schema from "effect/Schema"

/** No platform of that name (or one outside a token's scope, which must look the same: seed 000 §5 rule 3). */
export class PlatformNotFound extends Schema.TaggedError<PlatformNotFound>()("PlatformNotFound", {
  platform: Schema.String,
}) {
  override get message(): string {
    return `Platform ${quote(this.platform)} was not found`
  }
}

/** The platform exists but does not list that version. */
export class VersionNotFound extends Schema.TaggedError<VersionNotFound>()("VersionNotFound", {
  platform: Schema.String,
  version: Schema.String,
}) {
  override get message(): string {
    return `Version ${quote(this.version)} of platform ${quote(this.platform)} was not found`
  }
}

/** The version exists but no schema content has been saved for it yet. */
export class SchemaNotFound extends Schema.TaggedError<SchemaNotFound>()("SchemaNotFound", {
  platform: Schema.String,
  version: Schema.String,
}) {
  override get message(): string {
    return `Schema for version ${quote(this.version)} of platform ${quote(this.platform)} was not found`
  }
}

/**
 * A version added with its schema when the platform has that version already: adding alone changes nothing then,
 * but a schema sent with it would be lost or would replace one unseen, so the request is refused (409).
 */
export class VersionExists extends Schema.TaggedError<VersionExists>()("VersionExists", {
  platform: Schema.String,
  version: Schema.String,
}) {
  override get message(): string {
    return `Version ${quote(this.version)} of platform ${quote(this.platform)} exists already: save its schema instead`
  }
}

/** Dashboard creation of a platform whose name is taken (seed 000 §4: 409). */
export class PlatformExists extends Schema.TaggedError<PlatformExists>()("PlatformExists", {
  platform: Schema.String,
}) {
  override get message(): string {
    return `Platform ${quote(this.platform)} already exists`
  }
}

/** A platform name that cannot be created: see `platform.ts` for the rules. */
export class InvalidPlatformName extends Schema.TaggedError<InvalidPlatformName>()("InvalidPlatformName", {
  name: Schema.String,
  reason: Schema.String,
}) {
  override get message(): string {
    return `Invalid platform name ${quote(this.name)}: ${this.reason}`
  }
}

/** A `kind` outside the five of seed 000 §2. */
export class InvalidKind extends Schema.TaggedError<InvalidKind>()("InvalidKind", {
  /** What was sent, rendered as JSON (it may not even be a string). */
  received: Schema.String,
  allowed: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return `Invalid kind ${this.received}: expected one of ${this.allowed.join(", ")}`
  }
}

/** One schema that still extends a deletion target: the items of the 409 body's `blockedBy` (DESIGN.md). */
export const BlockingSchema = Schema.Struct({
  platform: Schema.String,
  version: Schema.String,
  /** The `@extends` reference as written, e.g. `ios/^1.2.0`. */
  extends: Schema.String,
})
export type BlockingSchema = typeof BlockingSchema.Type

/** A deletion refused because schemas still extend what it would remove (seed 000 §3: 409, unchanged). */
export class DeletionBlocked extends Schema.TaggedError<DeletionBlocked>()("DeletionBlocked", {
  /** What the deletion aimed at, e.g. `platform "ios"` or `version "1.0.0" of platform "ios"`. */
  target: Schema.String,
  blockedBy: Schema.Array(BlockingSchema),
}) {
  override get message(): string {
    const count = this.blockedBy.length
    return `Cannot delete ${this.target}: ${count} schema${count === 1 ? "" : "s"} still extend${count === 1 ? "s" : ""} it`
  }
}

/** No active API token with that id (never existed, or already revoked). */
export class TokenNotFound extends Schema.TaggedError<TokenNotFound>()("TokenNotFound", {
  id: Schema.String,
}) {
  override get message(): string {
    return "Token not found"
  }
}

/** The schema has no revision of that number (never saved that often, or its history was removed). */
export class RevisionNotFound extends Schema.TaggedError<RevisionNotFound>()("RevisionNotFound", {
  platform: Schema.String,
  version: Schema.String,
  revision: Schema.Number,
}) {
  override get message(): string {
    return `Revision ${this.revision} of ${quote(`${this.platform}/${this.version}`)} was not found`
  }
}

/**
 * A save that asked to land only on the revision its content came from (`expectedRevision`, 0: nothing saved yet)
 * found the schema at another one: someone saved it since, and nothing was written (409). `revision` is the one it
 * is at now (0: no content saved), so a client can show the newer content and save again on top of it knowingly.
 */
export class SchemaSavedMeanwhile extends Schema.TaggedError<SchemaSavedMeanwhile>()("SchemaSavedMeanwhile", {
  platform: Schema.String,
  version: Schema.String,
  expectedRevision: Schema.Number,
  revision: Schema.Number,
}) {
  override get message(): string {
    const { expectedRevision, revision } = this
    const schema = quote(`${this.platform}/${this.version}`)
    if (revision === 0)
      return `${schema} has no saved content now (expected revision ${expectedRevision}): it was removed since it was read, or never saved`
    if (expectedRevision === 0)
      return `${schema} was saved since it was read (it is at revision ${revision}; it was expected to have no content)`
    return `${schema} was saved since it was read: it is at revision ${revision}, not ${expectedRevision}`
  }
}
