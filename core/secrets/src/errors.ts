/**
 * The Secrets service's own failures, beside the kernel's generic ones (`Forbidden`, `BadRequest`, `Unauthorized`,
 * `StoreUnavailable`) and the naming errors of `domain/names.ts`. Each is a value; `core/http`
 * alone turns it into a status. Messages reach the actor as they are, so none carries a secret value or a
 * credential.
 */
import * as Schema from "effect/Schema"

// Something named in a request is not there, or not within the actor's reach, which must look the same (seed 001
// §5 rule 4: 404). One class per thing, each with a fixed message, so that the text never depends on why.

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {}) {
  override get message(): string {
    return "Project not found"
  }
}

export class EnvironmentNotFound extends Schema.TaggedError<EnvironmentNotFound>()("EnvironmentNotFound", {}) {
  override get message(): string {
    return "Environment not found"
  }
}

export class SecretNotFound extends Schema.TaggedError<SecretNotFound>()("SecretNotFound", {}) {
  override get message(): string {
    return "Secret not found"
  }
}

/** The secret exists but has no such version. */
export class SecretVersionNotFound extends Schema.TaggedError<SecretVersionNotFound>()("SecretVersionNotFound", {}) {
  override get message(): string {
    return "Version not found"
  }
}

export class MemberNotFound extends Schema.TaggedError<MemberNotFound>()("MemberNotFound", {}) {
  override get message(): string {
    return "Member not found"
  }
}

/** No pending invite with this id in the project (withdrawing one). */
export class InviteNotFound extends Schema.TaggedError<InviteNotFound>()("InviteNotFound", {}) {
  override get message(): string {
    return "Invite not found"
  }
}

/** An invite token that names no pending invite (accepting one): used, withdrawn, expired or unknown alike. */
export class InviteNotPending extends Schema.TaggedError<InviteNotPending>()("InviteNotPending", {}) {
  override get message(): string {
    return "Invite not found: it was used, withdrawn or has expired"
  }
}

/** No key with this id that the actor may manage. */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {}) {
  override get message(): string {
    return "API key not found"
  }
}

/**
 * Another request rotated the API key after this rotation read it (both from the key's holder, in two tabs or a
 * retrying script): only one new value can work, that request has it, and this one's is never stored (409).
 */
export class ApiKeyRotatedMeanwhile extends Schema.TaggedError<ApiKeyRotatedMeanwhile>()("ApiKeyRotatedMeanwhile", {}) {
  override get message(): string {
    return "Another request rotated this API key at the same time and received the one value that works (the key list shows its prefix); rotate again for a new value"
  }
}

/**
 * A write that asked to land only on a given version of its secret (`expectedVersion`, the check-and-set of Vault's
 * `cas`; 0: the key must not exist yet) found the secret at another one: someone changed, created or deleted it
 * since the writer read it, and nothing was written (409). The message names the key and both versions, never a
 * value; `currentVersion` (0: the key does not exist) lets a client offer to replace the newer version knowingly.
 */
export class SecretChangedMeanwhile extends Schema.TaggedError<SecretChangedMeanwhile>()("SecretChangedMeanwhile", {
  key: Schema.String,
  expectedVersion: Schema.Number,
  currentVersion: Schema.Number,
}) {
  override get message(): string {
    const { key, expectedVersion, currentVersion } = this
    if (currentVersion === 0)
      return `${key} does not exist (expected version ${expectedVersion}): it was deleted since it was read, or never created`
    if (expectedVersion === 0) return `${key} exists already (version ${currentVersion}): it was expected not to exist`
    // Only a deletion's check-and-set, which also compares the secret's id, can find the version it expected.
    if (currentVersion === expectedVersion)
      return `${key} was deleted and created again since it was read (it is at version ${currentVersion} anew)`
    return `${key} is at version ${currentVersion}, not ${expectedVersion}: it changed since it was read`
  }
}

/**
 * The project was deleted while a write under it was under way (SecretStore rule 8): a store refuses the orphan.
 * Still a 404, with words that say it was there a moment ago.
 */
export class ProjectGone extends Schema.TaggedError<ProjectGone>()("ProjectGone", {}) {
  override get message(): string {
    return "The project no longer exists"
  }
}

/** The environment was deleted while a secret was being written into it (SecretStore rule 8). */
export class EnvironmentGone extends Schema.TaggedError<EnvironmentGone>()("EnvironmentGone", {}) {
  override get message(): string {
    return "The environment no longer exists"
  }
}

/** A project with this slug exists already (seed 001 §4: 409). Slugs get no suffix, so the actor renames. */
export class ProjectExists extends Schema.TaggedError<ProjectExists>()("ProjectExists", {
  slug: Schema.String,
  message: Schema.String,
}) {}

/** The project has an environment of this name already (seed 001 §4: 409). */
export class EnvironmentExists extends Schema.TaggedError<EnvironmentExists>()("EnvironmentExists", {
  name: Schema.String,
  message: Schema.String,
}) {}

/** The actor is in the project already, so the invite is not used up (seed 001 §3: 409). */
export class AlreadyMember extends Schema.TaggedError<AlreadyMember>()("AlreadyMember", {
  message: Schema.String,
}) {}

/**
 * A secret changed between reading its version and writing the next one. Stores answer it so that no version is
 * ever lost or doubled; the use cases retry, so an actor sees it (409) only under sustained contention (a write
 * with an `expectedVersion` answers `SecretChangedMeanwhile` instead: its retry finds the secret moved on).
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

/** A command-line login code that names no pending login: unknown, expired, approved or denied alike (404). */
export class CliLoginNotFound extends Schema.TaggedError<CliLoginNotFound>()("CliLoginNotFound", {}) {
  override get message(): string {
    return "Login request not found: it was approved, denied or has expired"
  }
}

/** RFC 8628 §3.5's answers to a poll that receives no key yet; `code` tells a client what to do next. */
export const CliLoginWait = Schema.Literals(["authorization_pending", "slow_down", "access_denied", "expired_token"])
export type CliLoginWait = typeof CliLoginWait.Type

const cliLoginWaitMessages: Record<CliLoginWait, string> = {
  authorization_pending: "The login has not been approved yet",
  slow_down: "Polling too fast: wait longer between polls",
  access_denied: "The login was denied",
  expired_token: "The login has expired or was already used; start a new one",
}

/** A device-code poll that receives no key (400 `{ error, code }`). */
export class CliLoginRefused extends Schema.TaggedError<CliLoginRefused>()("CliLoginRefused", { code: CliLoginWait }) {
  override get message(): string {
    return cliLoginWaitMessages[this.code]
  }
}
