/**
 * Accepting an invite (issue 12 §8, seed 001 §4): the link is `<public origin>/invite#<token>`. The token is in
 * the fragment, so it never reaches a server log. A signed-out person is sent to sign in and back; meanwhile the
 * token waits in this tab's session storage rather than in the `returnTo` query, which the server would see.
 * Accepting is a button, so the person sees whom they join as; a used, withdrawn or expired link (404) and an
 * invite for a project the person is already in (409) are said in plain sentences.
 */
import { useEffect, useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import { acceptInvite, type ProjectView } from "../../api/secrets.js"
import { ActionButton, Alert, Loading } from "../../ui/components.js"
import { Link, navigate } from "../../ui/router.js"
import { useAction } from "../../ui/useAction.js"
import { projectPath } from "../projectFrame.js"
import { roleLabel } from "../roles.js"
import { useSession } from "../session.js"

const PENDING = "coffer.invite"

/** The token from the link's fragment, else the one kept while the person signed in. */
const tokenNow = (): string | undefined => {
  const fromLink = location.hash.slice(1)
  if (fromLink !== "") {
    sessionStorage.setItem(PENDING, fromLink)
    // Out of the address bar and the tab's history: a token shared by screen or copied address is used up.
    history.replaceState(null, "", "/invite")
    return fromLink
  }
  return sessionStorage.getItem(PENDING) ?? undefined
}

/** Why an invite did not work, as the person should read it. */
const explain = (error: unknown, email: string | undefined): unknown => {
  if (!(error instanceof ApiError)) return error
  if (error.status === 404) {
    return new Error(
      "This invite link no longer works: it was already used, withdrawn by the project's owner, or is more than 7 days old. Ask the owner for a new link.",
    )
  }
  if (error.status === 409) {
    return new Error(
      `You (${email ?? "this account"}) are already in this project, so the invite was not used; it still works for the person it was meant for.`,
    )
  }
  return error
}

export const AcceptInvite = () => {
  const [token, setToken] = useState(tokenNow)
  // A second link opened in this tab changes only the fragment, which loads no page: the new token is read here.
  useEffect(() => {
    const follow = () => {
      if (location.hash.length > 1) setToken(tokenNow())
    }
    addEventListener("hashchange", follow)
    return () => removeEventListener("hashchange", follow)
  }, [])
  if (token === undefined) {
    return (
      <section class="narrow stack">
        <h1>Join a project</h1>
        <p class="alert" role="alert">
          This address has no invite in it. Open the whole link you were sent, including the part after “#”.
        </p>
        {/* Accepting takes the invite out of the address (it works once): a reload after joining lands here. */}
        <p>
          Joined already? The project is among <Link href="/projects">your projects</Link>.
        </p>
      </section>
    )
  }
  return <Invite key={token} token={token} />
}

/** One invite's page: a new token starts afresh. */
const Invite = ({ token }: { readonly token: string }) => {
  const { current: user } = useSession()
  const [joined, setJoined] = useState<ProjectView>()
  const [spent, setSpent] = useState(false)
  const accept = useAction(async (token: string, email: string) => {
    try {
      const answer = await acceptInvite(token)
      sessionStorage.removeItem(PENDING)
      setJoined(answer.project)
    } catch (cause) {
      // A link that is used up, or not for this person, stays so; after a 429 or 503 it may work.
      if (cause instanceof ApiError && (cause.status === 404 || cause.status === 409)) {
        sessionStorage.removeItem(PENDING)
        setSpent(true)
      }
      throw explain(cause, email)
    }
  })
  useEffect(() => {
    if (user === undefined) navigate(`/sign-in?returnTo=${encodeURIComponent("/invite")}`)
  }, [user])

  if (user === undefined) return <Loading what="the sign-in page" />
  return (
    <section class="narrow stack">
      <h1>Join a project</h1>
      {joined === undefined ? (
        <>
          <p>
            You were invited to a project. Accept to join it as <strong>{user.email}</strong>.
          </p>
          <Alert error={accept.error} />
          <div class="actions">
            <Link class="button" href="/projects">
              Your projects
            </Link>
            <ActionButton
              type="button"
              class="button primary"
              busy={accept.busy}
              blocked={spent}
              onClick={() => accept.run(token, user.email)}
            >
              Accept invite
            </ActionButton>
          </div>
        </>
      ) : (
        <p class="notice" role="status">
          You joined <Link href={projectPath(joined.slug)}>{joined.name}</Link> ({roleLabel(joined.role)}).
        </p>
      )}
    </section>
  )
}
