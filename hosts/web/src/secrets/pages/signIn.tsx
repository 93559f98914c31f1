/**
 * Sign in (issue 12 §1): the shared sign-in page (`ui/signIn.tsx`) with the Secrets service's options and its
 * own `?error=` reason (seed 001 §4): an older account that an operator must link first.
 */
import { devLogin, instance } from "../../api/secrets.js"
import { SIGN_IN_ERRORS as SHARED_ERRORS, SignInPage } from "../../ui/signIn.js"
import { useSession } from "../session.js"

export const SIGN_IN_ERRORS: Readonly<Record<string, string>> = {
  ...SHARED_ERRORS,
  linking:
    "An older Coffer account already uses your e-mail address. An operator must link it to your sign-in with the command-line tool (coffer accounts link); then sign in again.",
}

export const SignIn = () => {
  const { current, setCurrent } = useSession()
  return (
    <SignInPage
      options={instance}
      signedIn={current !== undefined}
      home="/projects"
      errors={SIGN_IN_ERRORS}
      devLogin={async (email) => setCurrent((await devLogin(email)).user)}
    />
  )
}
