/**
 * Sign in (issue 12 §1): the identity provider's button, labelled with `signIn.oidc.name`; in development a
 * development-login form; a failed sign-in's `?error=<reason>` (seed 001 §4) as a sentence saying what happened
 * and what to do. `returnTo` (a path on this site) is where the person goes afterwards.
 */
import { useEffect, useState } from "preact/hooks"
import { devLogin, instance } from "../../api/secrets.js"
import { Alert, Field, Loading } from "../../ui/components.js"
import { localPath, navigate, useLocation } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import { useSession } from "../session.js"

/** What each `/sign-in?error=` reason means for the person reading it. */
export const SIGN_IN_ERRORS: Readonly<Record<string, string>> = {
  expired: "The sign-in took too long or was already completed. Please sign in again.",
  rejected:
    "The identity provider's answer could not be accepted, for example because the sign-in was started in another browser. Please sign in again from this page.",
  refused: "The identity provider refused the sign-in. If you think you should have access, ask your administrator.",
  email:
    "The identity provider did not share an e-mail address, which Coffer needs. Ask your administrator to release the e-mail claim to Coffer.",
  linking:
    "An older Coffer account already uses your e-mail address. An operator must link it to your sign-in with the command-line tool (coffer accounts link); then sign in again.",
  off: "Sign-in with an identity provider is not configured on this server. Ask your administrator.",
  unavailable: "The identity provider or Coffer is unavailable right now. Please try again in a few minutes.",
}

const UNKNOWN_ERROR = "The sign-in did not succeed. Please try again."

export const SignIn = () => {
  const { search } = useLocation()
  const { user, setUser } = useSession()
  const returnTo = localPath(search.get("returnTo")) ?? "/projects"
  const reason = search.get("error")
  const described = reason === null ? undefined : (SIGN_IN_ERRORS[reason] ?? UNKNOWN_ERROR)
  const info = useAsync(instance, [])
  const [email, setEmail] = useState("")
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (user !== undefined && reason === null) navigate(returnTo, { replace: true })
  }, [user, reason, returnTo])

  const oidc = info.data?.signIn.oidc
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      {described === undefined ? null : (
        <p class="alert" role="alert">
          {described}
        </p>
      )}
      {info.loading && info.data === undefined ? <Loading what="the sign-in options" /> : null}
      <Alert error={info.error} />
      {oidc === null || oidc === undefined ? null : (
        <p>
          <a class="button primary wide" href={`${oidc.url}?returnTo=${encodeURIComponent(returnTo)}`}>
            {oidc.name}
          </a>
        </p>
      )}
      {info.data?.signIn.development === true ? (
        <form
          class="card stack"
          aria-label="Development login"
          onSubmit={async (event) => {
            event.preventDefault()
            setBusy(true)
            try {
              const answer = await devLogin(email)
              setError(undefined)
              setUser(answer.user)
              navigate(returnTo, { replace: true })
            } catch (cause) {
              setError(cause)
            } finally {
              setBusy(false)
            }
          }}
        >
          <h2>Development login</h2>
          <p class="hint">This server runs in development mode: sign in as anyone by e-mail, without a password.</p>
          <Field
            label="E-mail"
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
          <Alert error={error} />
          <button class="button primary" type="submit" disabled={busy}>
            Sign in as this e-mail
          </button>
        </form>
      ) : null}
      {info.data !== undefined && oidc === null && !info.data.signIn.development ? (
        <p class="alert" role="alert">
          No way to sign in is configured on this server. Ask your administrator to set up OpenID Connect.
        </p>
      ) : null}
    </section>
  )
}
