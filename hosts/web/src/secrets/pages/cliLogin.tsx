/**
 * Approving a command-line login (`coffer login --web`): the command prints `<origin>/cli-login?code=ABCD-EFGH`.
 * The page shows the machine's name and the code to compare with the terminal, and approves it for one project
 * with a scope and an optional expiry (the rules of creating an API key: the key is created as this person when
 * the command next polls), or denies it. A signed-out person is sent to sign in and back by the app shell.
 * A code that is unknown, expired or already decided (404) is said plainly.
 */
import { useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import { approveCliLogin, denyCliLogin, getCliLogin, listProjects, type ProjectView } from "../../api/secrets.js"
import { ActionButton, Alert, formatTime, LoadFailed, Loading } from "../../ui/components.js"
import { Link, useLocation } from "../../ui/router.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { useKeyGrant } from "../keyGrant.js"

const gone = (
  <p class="alert" role="alert">
    This login code does not work any more: it expired (codes last 10 minutes), was already approved or denied, or was
    mistyped. Run <code>coffer login --web</code> again for a new one.
  </p>
)

export const CliLogin = () => {
  const { search } = useLocation()
  const code = (search.get("code") ?? "").trim().toUpperCase()
  const pending = useAsync(() => getCliLogin(code), [code])
  const projects = useAsync(listProjects, [])
  const [decided, setDecided] = useState<"approved" | "denied">()
  let body: preact.ComponentChildren
  if (decided === "approved") {
    body = (
      <p class="notice" role="status">
        Approved. The command line receives its key when it next checks, within a few seconds; you can close this tab.
      </p>
    )
  } else if (decided === "denied") {
    body = (
      <p class="notice" role="status">
        Denied. The command line gets no key; you can close this tab.
      </p>
    )
  } else if (code === "") {
    body = (
      <p class="alert" role="alert">
        This address has no login code in it. Open the whole link that <code>coffer login --web</code> printed.
      </p>
    )
  } else if (pending.error instanceof ApiError && pending.error.status === 404) {
    body = gone
  } else if (pending.error !== undefined) {
    body = <LoadFailed error={pending.error} retry={pending.reload} />
  } else if (pending.data === undefined || projects.data === undefined) {
    body = projects.error === undefined ? <Loading what="the login request" /> : <Alert error={projects.error} />
  } else {
    body = (
      <Approve
        code={code}
        name={pending.data.name}
        expiresAt={pending.data.expiresAt}
        projects={projects.data.projects}
        onDecided={setDecided}
      />
    )
  }
  return (
    <section class="narrow stack">
      <h1>Approve a command-line login</h1>
      {body}
    </section>
  )
}

const Approve = ({
  code,
  name,
  expiresAt,
  projects,
  onDecided,
}: {
  readonly code: string
  readonly name: string
  readonly expiresAt: string
  readonly projects: ReadonlyArray<ProjectView>
  readonly onDecided: (decision: "approved" | "denied") => void
}) => {
  const { project, grant, fields } = useKeyGrant(projects)
  const approve = useAction(async () => {
    await approveCliLogin(code, grant)
    onDecided("approved")
  })
  const deny = useAction(async () => {
    await denyCliLogin(code)
    onDecided("denied")
  })
  if (projects.length === 0) {
    return (
      <p class="alert" role="alert">
        You are in no project yet, so there is nothing to give the command line a key for.{" "}
        <Link href="/projects">Create a project</Link> first, then run <code>coffer login --web</code> again.
      </p>
    )
  }
  return (
    <form
      class="card stack cli-login"
      aria-label="Approve the command-line login"
      // Enter in a field while a denial is on its way would send an approval after it.
      onSubmit={(event) => (deny.busy ? event.preventDefault() : approve.submit(event))}
    >
      <p>
        <strong class="wraps">{name}</strong> asks for an API key. Check that your terminal shows the same code:
      </p>
      <p class="login-code">{code}</p>
      <p>
        {/* RFC 8628 §5.4: a link to this page can be sent to anyone; the key goes to whoever started the login. */}
        Approve only if you ran <code>coffer login --web</code> yourself just now: whoever started this login gets the
        key.
      </p>
      <p class="hint">The request expires {formatTime(expiresAt)}.</p>
      {fields}
      <Alert error={approve.error ?? deny.error} />
      <div class="actions">
        {/* One decision at a time: the other one, sent meanwhile, would race it, and its answer would not be shown. */}
        <ActionButton type="button" class="button" busy={deny.busy} blocked={approve.busy} onClick={() => deny.run()}>
          Deny
        </ActionButton>
        <ActionButton
          type="submit"
          class="button primary"
          busy={approve.busy}
          blocked={project === undefined || deny.busy}
        >
          Approve
        </ActionButton>
      </div>
    </form>
  )
}
