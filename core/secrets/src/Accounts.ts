/**
 * The Accounts port: the people of the secrets service. A user is an account (`id`, `email`); an identity is
 * an identity provider's issuer and subject, naming exactly one user. Sign-in matches people by identity only,
 * never by e-mail (seed 001 §1); the e-mail is for display and for refusing to create a second account for an
 * address that already has one, until an operator links the new identity with `coffer accounts link`.
 *
 * Rules every adapter MUST keep (each is checked by the contract suite in `test/contract`):
 * - An e-mail belongs to one account at most, compared by `emailKey` (NFC, lower case): `create` and
 *   `updateEmail` fail with `EmailTaken` rather than give a second account the same address, also when two
 *   calls race.
 * - `create` makes the user and its first identity together or not at all; it fails with `IdentityTaken` or
 *   `EmailTaken` when either is taken (a racing first sign-in: look the identity up again).
 * - `link` attaches an identity to an existing user (`AccountNotFound` when there is none); linking an identity
 *   of another user is `IdentityTaken` (unlink it first); linking it again to the same user changes nothing.
 * - `unlink` removes an identity (`IdentityNotFound` when unknown); the account stays, with its other identities.
 * - Times are epoch milliseconds (`EpochMillis`, as at every port); `list` is ordered by creation, oldest first,
 *   and each account's identities likewise.
 * - When the backing store cannot be reached every call fails with `StoreUnavailable`.
 */
import type { StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  /** Epoch milliseconds. */
  createdAt: Schema.Number,
})
export type User = typeof User.Type

export const Identity = Schema.Struct({
  issuer: Schema.String,
  subject: Schema.String,
  /** Epoch milliseconds. */
  createdAt: Schema.Number,
})
export type Identity = typeof Identity.Type

/** A user with every identity that signs in as them, for operators (`coffer accounts list`). */
export const Account = Schema.Struct({ ...User.fields, identities: Schema.Array(Identity) })
export type Account = typeof Account.Type

export interface NewAccount {
  readonly email: string
  readonly issuer: string
  readonly subject: string
}

/** The form in which e-mail addresses are compared: Unicode NFC, lower case. */
export const emailKey = (email: string): string => email.normalize("NFC").toLowerCase()

export class Accounts extends Context.Service<
  Accounts,
  {
    readonly findByIdentity: (issuer: string, subject: string) => Effect.Effect<User | undefined, StoreUnavailable>
    readonly findById: (id: string) => Effect.Effect<User | undefined, StoreUnavailable>
    /** Compared by `emailKey`, so `Ada@Example.com` finds `ada@example.com`. */
    readonly findByEmail: (email: string) => Effect.Effect<User | undefined, StoreUnavailable>
    /** A new user with its first identity, atomically. */
    readonly create: (input: NewAccount) => Effect.Effect<User, IdentityTaken | EmailTaken | StoreUnavailable>
    /** The user with the new address; `EmailTaken` when another account holds it. */
    readonly updateEmail: (
      id: string,
      email: string,
    ) => Effect.Effect<User, AccountNotFound | EmailTaken | StoreUnavailable>
    readonly link: (
      userId: string,
      issuer: string,
      subject: string,
    ) => Effect.Effect<void, AccountNotFound | IdentityTaken | StoreUnavailable>
    readonly unlink: (issuer: string, subject: string) => Effect.Effect<void, IdentityNotFound | StoreUnavailable>
    readonly list: () => Effect.Effect<ReadonlyArray<Account>, StoreUnavailable>
  }
>()("@coffer/secrets/Accounts") {}

/** No account has this id (an operator's `coffer accounts link`, or an account removed meanwhile). */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  userId: Schema.String,
}) {
  override get message(): string {
    return `No account with id ${JSON.stringify(this.userId)}`
  }
}

/** No account signs in with this identity (`unlink`). */
export class IdentityNotFound extends Schema.TaggedError<IdentityNotFound>()("IdentityNotFound", {}) {
  override get message(): string {
    return "No account signs in with this identity"
  }
}

/**
 * The identity signs in to an account already: `create` meets a racing first sign-in of the same identity, or
 * `link` is asked to move another account's identity.
 */
export class IdentityTaken extends Schema.TaggedError<IdentityTaken>()("IdentityTaken", {
  ofAnotherAccount: Schema.Boolean,
}) {
  override get message(): string {
    return this.ofAnotherAccount
      ? "This identity signs in to another account; unlink it first"
      : "This identity already signs in to an account"
  }
}

/** Another account has this e-mail address (compared by `emailKey`). */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {}) {
  override get message(): string {
    return "Another account has this e-mail address"
  }
}
