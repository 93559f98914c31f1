/**
 * The Secrets service's own failures, beside the kernel's generic ones (`NotFound`, `Forbidden`, `BadRequest`,
 * `Unauthorized`, `StoreUnavailable`) and the naming errors of `domain/names.ts`. Each is a value; `core/http`
 * alone turns it into a status. Messages reach the caller as they are, so none carries a secret value or a
 * credential.
 */
import { Schema } from "effect"

/** A project with this slug exists already (seed 001 §4: 409). Slugs get no suffix, so the caller renames. */
export class ProjectExists extends Schema.TaggedError<ProjectExists>()("ProjectExists", {
  slug: Schema.String,
  message: Schema.String,
}) {}

/** The project has an environment of this name already (seed 001 §4: 409). */
export class EnvironmentExists extends Schema.TaggedError<EnvironmentExists>()("EnvironmentExists", {
  name: Schema.String,
  message: Schema.String,
}) {}

/** The caller is in the project already, so the invite is not used up (seed 001 §3: 409). */
export class AlreadyMember extends Schema.TaggedError<AlreadyMember>()("AlreadyMember", {
  message: Schema.String,
}) {}

/**
 * A secret changed between reading its version and writing the next one. Stores answer it so that no version is
 * ever lost or doubled; the use cases retry, so a caller sees it (409) only under sustained contention.
 */
export class VersionConflict extends Schema.TaggedError<VersionConflict>()("VersionConflict", {
  message: Schema.String,
}) {}

/**
 * A stored value did not open: its ciphertext was altered or moved from another row, or its project's data key
 * is wrapped under a master key this instance does not have. The value is never guessed at; this is a fault of
 * the stored data or the configuration, not of the request (500, with this message and no detail).
 */
export class SecretUnreadable extends Schema.TaggedError<SecretUnreadable>()("SecretUnreadable", {
  message: Schema.String,
}) {}
