/**
 * The sign-in page both apps share: the identity provider's button, labelled with `signIn.oidc.name`; in
 * development a development-login form with an e-mail (and any fields the app adds); a failed sign-in's
 * `?error=<reason>` as a sentence saying what happened and what to do. `returnTo` (a path on this site) is where
 * the person goes afterwards.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"
import type { SignInOptions } from "../api/client.js"
import { ActionButton, Alert, Field, Loading } from "./components.js"
import { localPath, navigate, useLocation } from "./router.js"
import { useAction } from "./useAction.js"
import { useAsync } from "./useAsync.js"

/** What each `/sign-in?error=` reason both services give means for the person reading it. */
export const SIGN_IN_ERRORS: Readonly<Record<string, string>> = {
  expired: "The sign-in took too long or was already completed. Please sign in again.",
  rejected:
    "The identity provider's answer could not be accepted, for example because the sign-in was started in another browser. Please sign in again from this page.",
  refused: "The identity provider refused the sign-in. If you think you should have access, ask your administrator.",
  // Said both when the provider sent no address and when it marked it unverified (`email_verified: false`).
  email:
    "The identity provider did not share a verified e-mail address, which Coffer needs. If your address is not verified there yet, verify it and sign in again; otherwise ask your administrator to release the e-mail claim to Coffer.",
  off: "Sign-in with an identity provider is not configured on this server. Ask your administrator.",
  unavailable: "The identity provider or Coffer is unavailable right now. Please try again in a few minutes.",
  // The app's own reason, not the server's: a request found the session over while the person worked.
  ended: "Your session ended. Sign in again to go back to the page you were on.",
}

const UNKNOWN_ERROR = "The sign-in did not succeed. Please try again."

export interface SignInPageProps {
  /** The service's sign-in options (its instance description). */
  readonly options: () => Promise<{ readonly signIn: SignInOptions }>
  /** Whether someone is signed in already: then the page moves on to `returnTo`. */
  readonly signedIn: boolean
  /** Where to go when no `returnTo` is given, e.g. "/projects". */
  readonly home: string
  /** The sentences of `?error=` reasons, `SIGN_IN_ERRORS` and any the service adds. */
  readonly errors?: Readonly<Record<string, string>>
  /** Signs in as `email` in development and makes the session known to the app. */
  readonly devLogin: (email: string) => Promise<void>
  /** Further fields of the development login, after the e-mail. */
  readonly children?: ComponentChildren
}

export const SignInPage = ({
  options,
  signedIn,
  home,
  errors = SIGN_IN_ERRORS,
  devLogin,
  children,
}: SignInPageProps) => {
  const { search } = useLocation()
  const returnTo = localPath(search.get("returnTo")) ?? home
  const reason = search.get("error")
  const described = reason === null ? undefined : (errors[reason] ?? UNKNOWN_ERROR)
  const info = useAsync(options, [])
  const [email, setEmail] = useState("")
  const login = useAction(async () => {
    await devLogin(email)
    navigate(returnTo, { replace: true })
  })

  useEffect(() => {
    if (signedIn && reason === null) navigate(returnTo, { replace: true })
  }, [signedIn, reason, returnTo])

  const oidc = info.data?.signIn.oidc
  return (
    // A stack, so the alert, the identity provider's button and the development login keep apart.
    <section class="narrow stack">
      <h1>Sign in</h1>
      {described === undefined ? null : (
        <p class="alert" role="alert">
          {described}
        </p>
      )}
      {info.loading && info.data === undefined ? <Loading what="the sign-in options" /> : null}
      <Alert error={info.error} />
      {oidc === null || oidc === undefined ? null : (
        <div>
          <a class="button primary wide" href={`${oidc.url}?returnTo=${encodeURIComponent(returnTo)}`}>
            {oidc.name}
          </a>
        </div>
      )}
      {info.data?.signIn.development === true ? (
        <form class="card stack" aria-label="Development login" onSubmit={login.submit}>
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
          {children}
          <Alert error={login.error} />
          <ActionButton class="button primary" type="submit" busy={login.busy}>
            Sign in as this e-mail
          </ActionButton>
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
