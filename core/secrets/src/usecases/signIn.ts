/**
 * Signing a person in to the secrets service, whatever proved who they are (the identity provider, or the
 * development login): people are matched by issuer and subject, never by e-mail (seed 001 §1).
 *
 * - A known identity signs in as its account. When the provider now reports another e-mail address, the
 *   account takes it, unless another account holds that address (then the old one stays: e-mail is display,
 *   and identity decides who this is).
 * - An unknown identity creates an account (first sign-in), unless an older account already has this e-mail:
 *   then the sign-in is refused with `AccountLinkRequired` (409) until an operator links the new identity to
 *   that account, because matching by e-mail would let whoever controls an address at some provider take over
 *   the account.
 */
import { type Cache, type Identity, type Random, Sessions, SignIn, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Accounts from "../Accounts.js"
import { renewingKeyChecks } from "./apiKeyChecks.js"

/** The issuer of development logins (`COFFER_ENV=development`); the subject is the address, normalised. */
export const DEVELOPMENT_ISSUER = "urn:coffer:development"

/** An unknown identity whose e-mail an older account holds; an operator must link them. */
export class AccountLinkRequired extends Schema.TaggedError<AccountLinkRequired>()("AccountLinkRequired", {
  message: Schema.String,
}) {}

const linkRequired = () =>
  new AccountLinkRequired({
    message:
      "An account with this e-mail address already exists; an operator must link this sign-in to it with `coffer accounts link`",
  })

export interface SignInInput {
  readonly issuer: string
  readonly subject: string
  readonly email: string
}

export const signIn = Effect.fn("Secrets.signIn")(function* (input: SignInInput) {
  const accounts = yield* Accounts.Accounts
  const known = yield* accounts.findByIdentity(input.issuer, input.subject)
  if (known !== undefined) {
    if (known.email === input.email) return known
    // The address is what the person's API keys act as: checks cached of them are abandoned.
    return yield* accounts.updateEmail(known.id, input.email).pipe(
      renewingKeyChecks,
      Effect.catchTag("EmailTaken", () => Effect.succeed(known)),
      // The identity was found a moment ago and identities go with their account: nothing deletes accounts.
      Effect.catchTag("AccountNotFound", (error) => Effect.die(error)),
    )
  }
  // The e-mail may be held because a concurrent first sign-in of this same identity has just created the
  // account; only when the identity is still unknown does the address belong to someone else's account.
  const identityOrLinkRequired = Effect.flatMap(accounts.findByIdentity(input.issuer, input.subject), (winner) =>
    winner === undefined ? Effect.fail(linkRequired()) : Effect.succeed(winner),
  )
  if ((yield* accounts.findByEmail(input.email)) !== undefined) return yield* identityOrLinkRequired
  // Either refusal means another sign-in won a race, with this identity or with this e-mail: the same question.
  return yield* accounts
    .create(input)
    .pipe(Effect.catchTag(["IdentityTaken", "EmailTaken"], () => identityOrLinkRequired))
})

/**
 * The identity of a development login (seed 001 §4): the address is the subject, normalised, so its case never
 * makes a second account. Its sessions record it like a provider's, so unlinking it ends them too.
 */
export const developmentIdentity = (email: string) =>
  ({ issuer: DEVELOPMENT_ISSUER, subject: Accounts.emailKey(email) }) as const

/** The development login: signs in as the account of the address's development identity. */
export const developmentSignIn = (email: string) => signIn({ ...developmentIdentity(email), email })

/**
 * What an OIDC sign-in means to the secrets service (seed 001 §1), the `SignIn.SignedInStep` its routes pass
 * in: the account of this identity, created at its first sign-in; `AccountLinkRequired` (409, `linking`) while
 * an older account holds the e-mail and no operator has linked them.
 */
export const secretsSignedIn = (
  signedIn: Identity.SignedIn,
): Effect.Effect<
  Sessions.NewSession,
  Identity.IdentityError | AccountLinkRequired | StoreUnavailable,
  Accounts.Accounts | Cache.Cache | Random.Random
> =>
  Effect.gen(function* () {
    const email = yield* SignIn.emailOf(signedIn)
    const user = yield* signIn({ issuer: signedIn.issuer, subject: signedIn.subject, email })
    return { userId: user.id, email: user.email, groups: [] } satisfies Sessions.NewSession
  })

/**
 * An operator's unlink (`coffer accounts unlink`): the identity signs in to no account from now on, and the
 * sessions it started end now rather than after their seven days. Sessions are ended even when the identity is
 * already unlinked (`IdentityNotFound` is still answered), so rerunning a command whose revocation failed finishes the job.
 * Answers how many sessions ended.
 */
export const unlinkIdentity: (
  issuer: string,
  subject: string,
) => Effect.Effect<number, Accounts.IdentityNotFound | StoreUnavailable, Accounts.Accounts | Sessions.Sessions> =
  Effect.fn("Secrets.unlinkIdentity")(function* (issuer: string, subject: string) {
    const unlinked = yield* Effect.exit((yield* Accounts.Accounts).unlink(issuer, subject))
    const ended = yield* (yield* Sessions.Sessions).revokeWhere({ issuer, subject })
    return yield* Effect.as(unlinked, ended)
  })
