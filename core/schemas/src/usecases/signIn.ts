/**
 * What an OIDC sign-in means to the schemas service (seed 000 §5), the `SignIn.SignedInStep` its routes pass
 * in: the groups of `OIDC_ROLES_CLAIM` at sign-in, recorded on the session (rule 3: a change of groups takes
 * effect at the next sign-in). The schemas service has no accounts: the person is the subject.
 */
import { type Identity, type Sessions, SignIn } from "@coffer/kernel"
import * as Effect from "effect/Effect"

/**
 * The groups of the roles claim: a list of strings, or one string for providers that send a single group bare.
 * Anything else counts as no groups, which only ever narrows what the person may do.
 */
export const groupsOf = (claims: Readonly<Record<string, unknown>>, claim: string): ReadonlyArray<string> => {
  const value = claims[claim]
  if (typeof value === "string") return value === "" ? [] : [value]
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === "string") : []
}

/** The session of a sign-in; `rolesClaim` is read at each sign-in, as the roles settings are (rule 1). */
export const schemasSignedIn =
  (rolesClaim: () => string) =>
  (signedIn: Identity.SignedIn): Effect.Effect<Sessions.NewSession, Identity.IdentityError> =>
    Effect.map(SignIn.emailOf(signedIn), (email) => ({
      userId: signedIn.subject,
      email,
      groups: groupsOf(signedIn.claims, rolesClaim()),
    }))
