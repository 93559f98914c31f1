/**
 * Sign in (issue 13 §1): the identity provider's button, labelled with `signIn.oidc.name`; in development a
 * development-login form with an e-mail and the groups that stand for the roles claim (seed 000 §5); a failed
 * sign-in's `?error=<reason>` as a sentence. `returnTo` (a path on this site) is where the person goes next.
 */
import { useEffect, useState } from "preact/hooks"
import { devLogin, getSession, instance } from "../../api/schemas.js"
import { Alert, Field, Loading } from "../../ui/components.js"
import { localPath, navigate, useLocation } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import { useSession } from "../session.js"

/** What each `/sign-in?error=` reason means for the person reading it. */
const SIGN_IN_ERRORS: Readonly<Record<string, string>> = {
  expired: "The sign-in took too long or was already completed. Please sign in again.",
  rejected:
    "The identity provider's answer could not be accepted, for example because the sign-in was started in another browser. Please sign in again from this page.",
  refused: "The identity provider refused the sign-in. If you think you should have access, ask your administrator.",
  email:
    "The identity provider did not share an e-mail address, which Coffer needs. Ask your administrator to release the e-mail claim to Coffer.",
  off: "Sign-in with an identity provider is not configured on this server. Ask your administrator.",
  unavailable: "The identity provider or Coffer is unavailable right now. Please try again in a few minutes.",
}

const UNKNOWN_ERROR = "The sign-in did not succeed. Please try again."

/** `"editors, mobile"` as the groups it names; blanks and repeats dropped. */
export const groupsOf = (text: string): Array<string> => [
  ...new Set(
    text
      .split(/[,\s]+/)
      .map((group) => group.trim())
      .filter((group) => group !== ""),
  ),
]

export const SignIn = () => {
  const { search } = useLocation()
  const { current, setCurrent } = useSession()
  const returnTo = localPath(search.get("returnTo")) ?? "/platforms"
  const reason = search.get("error")
  const described = reason === null ? undefined : (SIGN_IN_ERRORS[reason] ?? UNKNOWN_ERROR)
  const info = useAsync(instance, [])
  const [email, setEmail] = useState("")
  const [groups, setGroups] = useState("")
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (current !== undefined && reason === null) navigate(returnTo, { replace: true })
  }, [current, reason, returnTo])

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
              await devLogin(email, groupsOf(groups))
              const session = await getSession()
              setError(undefined)
              setCurrent(session)
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
          <Field
            label="Groups"
            name="groups"
            autoComplete="off"
            value={groups}
            onInput={(event) => setGroups(event.currentTarget.value)}
            hint="Optional, separated by commas: they stand for the roles claim of a real sign-in (editor, admin and platform groups)."
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
