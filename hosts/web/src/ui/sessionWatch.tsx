/**
 * Every tab of an app notices when the signed-in person changes, or the session ends, in another tab or window:
 * the session cookie is the browser's, not the tab's, so a tab still showing alice would otherwise send what she
 * typed as carol, who signed in elsewhere. A tab that signs in, signs out or loads signed in tells the others (a
 * `BroadcastChannel`), and a tab that becomes visible again asks the service who is signed in. When that is no
 * longer the page's person, the API client refuses every request (`refuseRequests`: nothing is written as, and
 * nothing read for, someone the page does not show) and a blocking notice names who is signed in now, with Reload.
 * Until a tab hears of the change, the service refuses for it: every request names the page's person
 * (`expectUser`), and one that came with someone else's session (412) makes the tab ask at once.
 * Should the page's person sign in again elsewhere, the notice goes and the page, with anything typed, works again.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError, expectUser, holdRequestsFor, onSignedInAsSomeoneElse, refuseRequests } from "../api/client.js"
import { currentPath } from "./router.js"
import { signInAgainHref } from "./signedInAgain.js"

const CHANNEL = "coffer.session"

/** Who is signed in now instead of the page's person: an e-mail, or `null` for nobody. */
export interface SessionChange {
  readonly now: string | null
}

/** The sentence every refused request gives while the change lasts. */
const refusalOf = (change: SessionChange, page: string): string =>
  change.now === null
    ? `Nothing was sent: you signed out in another tab or window, or your session ended. Reload to sign in again.`
    : `Nothing was sent: ${change.now} signed in in another tab or window, and this page is ${page}'s. Reload to continue as ${change.now}.`

export interface SessionWatchOptions<S> {
  /** The page's person, as this tab knows it; `undefined` while signed out. */
  readonly current: S | undefined
  /** Asks the service who is signed in; a refusal (401) means nobody. */
  readonly loadSession: () => Promise<S>
  /** What tells two people apart (a user id). */
  readonly idOf: (session: S) => string
  readonly emailOf: (session: S) => string
}

/** Watches the other tabs and the service for a change of person; the change, while there is one. */
export const useSessionWatch = <S,>({
  current,
  loadSession,
  idOf,
  emailOf,
}: SessionWatchOptions<S>): SessionChange | undefined => {
  const [change, setChange] = useState<SessionChange>()
  const pageId = current === undefined ? undefined : idOf(current)
  const pageEmail = current === undefined ? undefined : emailOf(current)
  // While rendering, not in an effect: the page's own effects, its first requests, run before this hook's.
  expectUser(pageId)
  const [channel] = useState(() =>
    typeof BroadcastChannel === "undefined" ? undefined : new BroadcastChannel(CHANNEL),
  )
  useEffect(() => () => channel?.close(), [])
  const announced = useRef<string | undefined>()
  const changed = useRef(false)
  changed.current = change !== undefined

  // This tab's own person changed (loaded, signed in, signed out): it is the page's person now, and the others hear.
  useEffect(() => {
    setChange(undefined)
    refuseRequests(undefined)
    if (pageId === announced.current) return
    announced.current = pageId
    channel?.postMessage({ person: pageId ?? null })
  }, [pageId])

  useEffect(() => {
    if (pageId === undefined || pageEmail === undefined) return
    // An answer arriving after this page's person changed (signed out here, another page) is not this effect's.
    let current = true
    const check = () => {
      const answer = loadSession()
        .then(
          (session): SessionChange | undefined => (idOf(session) === pageId ? undefined : { now: emailOf(session) }),
          (cause: unknown): SessionChange | undefined | "unknown" =>
            cause instanceof ApiError && cause.status === 401 ? { now: null } : "unknown",
        )
        .then((found) => {
          // The service could not be asked (offline): what was known stands.
          if (found === "unknown" || !current) return
          refuseRequests(found === undefined ? undefined : refusalOf(found, pageEmail))
          setChange(found)
        })
      holdRequestsFor(answer)
    }
    // Another tab announcing the page's own person changes nothing, unless someone else was signed in meanwhile.
    const listen = (event: MessageEvent<{ readonly person?: unknown }>) => {
      if (event.data?.person !== pageId || changed.current) check()
    }
    const visible = () => {
      if (document.visibilityState === "visible") check()
    }
    channel?.addEventListener("message", listen)
    document.addEventListener("visibilitychange", visible)
    const refused = onSignedInAsSomeoneElse(check)
    return () => {
      current = false
      channel?.removeEventListener("message", listen)
      document.removeEventListener("visibilitychange", visible)
      refused()
    }
  }, [pageId, pageEmail])

  return change
}

/**
 * The notice over the whole page while someone else (or nobody) is signed in: a modal that Escape does not close,
 * since nothing on the page can be used until it is reloaded or the page's person signs in again. Its backdrop is
 * opaque (`.session-changed` in `styles.css`): the page stays beneath it, with anything typed, but what it shows
 * (a revealed value, the keys, the audit log) was read for the page's person and is not left on screen for whoever
 * uses the browser after they signed out, or for the person now signed in.
 */
export const SessionChangedNotice = ({ change, page }: { readonly change: SessionChange; readonly page: string }) => {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  return (
    <dialog
      ref={ref}
      class="dialog session-changed"
      role="alertdialog"
      aria-labelledby="session-changed-title"
      aria-describedby="session-changed-text"
      onCancel={(event) => event.preventDefault()}
    >
      <header class="dialog-header">
        <h2 id="session-changed-title">
          {change.now === null ? "You are signed out" : "You signed in as someone else"}
        </h2>
      </header>
      <div class="stack" id="session-changed-text">
        {change.now === null ? (
          <p>
            You signed out in another tab or window, or your session ended. This page was opened as {page}: nothing more
            is sent from it. Reload to sign in again.
          </p>
        ) : (
          <p>
            You are now signed in as <strong>{change.now}</strong> in another tab or window. This page was opened as{" "}
            {page}: nothing more is sent from it, so nothing is saved as {change.now} by mistake. Reload to continue as{" "}
            {change.now}.
          </p>
        )}
        <p class="hint">
          Signing in as {page} again in another tab lets you go on here, with anything you typed.
          {change.now === null ? (
            <>
              {" "}
              <a href={signInAgainHref(currentPath())} target="_blank" rel="noopener">
                Sign in again in a new tab
              </a>
            </>
          ) : null}
        </p>
        <div class="row">
          <button type="button" class="button primary" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      </div>
    </dialog>
  )
}
