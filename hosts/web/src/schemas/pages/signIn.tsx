/**
 * Sign in (issue 13 §1): the shared sign-in page (`ui/signIn.tsx`) with the Schemas service's options; its
 * development login adds the groups that stand for the roles claim (seed 000 §5).
 */
import { useState } from "preact/hooks"
import { devLogin, getSession, instance } from "../../api/schemas.js"
import { Field } from "../../ui/components.js"
import { SignInPage } from "../../ui/signIn.js"
import { home } from "../paths.js"
import { useSession } from "../session.js"

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
  const { current, setCurrent } = useSession()
  const [groups, setGroups] = useState("")
  return (
    <SignInPage
      options={instance}
      signedIn={current !== undefined}
      home={home.href}
      devLogin={async (email) => {
        await devLogin(email, groupsOf(groups))
        setCurrent(await getSession())
      }}
    >
      <Field
        label="Groups"
        name="groups"
        autoComplete="off"
        value={groups}
        onInput={(event) => setGroups(event.currentTarget.value)}
        hint="Optional, separated by commas: they stand for the roles claim of a real sign-in (editor, admin and platform groups)."
      />
    </SignInPage>
  )
}
