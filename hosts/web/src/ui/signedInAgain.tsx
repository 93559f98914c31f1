/**
 * Where **Sign in again** leads once the person has signed in. That link (the `Alert` of a 401 on a page kept for
 * typed input, `components.tsx`) opens the sign-in page in a new tab, so that the typed input survives in the old
 * one. Landing on the same page again would leave two copies of it, only one of them holding the input, and the
 * person at work in the wrong one: this page says where the work is instead.
 */
import { Link, localPath, useLocation } from "./router.js"

export const SIGNED_IN_AGAIN_PATH = "/signed-in-again"

/** The sign-in page, returning to this one with `page` (the page whose input waits) to offer. */
export const signInAgainHref = (page: string): string =>
  `/sign-in?returnTo=${encodeURIComponent(`${SIGNED_IN_AGAIN_PATH}?page=${encodeURIComponent(page)}`)}`

export const SignedInAgain = () => {
  const page = localPath(useLocation().search.get("page"))
  return (
    <section class="narrow stack">
      <h1>Signed in again</h1>
      <p>
        Go back to the tab where you were working: what you typed is still there, and saving works again. You can close
        this tab.
      </p>
      {page === undefined ? null : (
        <p>
          <Link href={page}>Open that page in this tab instead</Link> (without what you typed there).
        </p>
      )}
    </section>
  )
}
