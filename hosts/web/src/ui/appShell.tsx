/**
 * An app's shell: finds out who is signed in, then shows the page of the current path in the shared `Layout`.
 * Pages that need a session send a signed-out person to `/sign-in?returnTo=<this page>`, and so does any
 * request that finds the session expired (401), so the person lands back where they were after signing in. Another
 * tab signing someone else in, or signing out, is noticed (`sessionWatch.tsx`).
 */
import type { Context } from "preact"
import { useEffect, useMemo, useState } from "preact/hooks"
import { onUnauthorized } from "../api/client.js"
import { Loading } from "./components.js"
import { Layout, type NavItem } from "./layout.js"
import { NotFound } from "./notFound.js"
import { currentPath, matchRoute, navigate, type Route, useLocation } from "./router.js"
import type { Session } from "./session.js"
import { SessionChangedNotice, useSessionWatch } from "./sessionWatch.js"
import { Toasts } from "./toast.js"

export interface AppShellProps<S> {
  /** The brand in the header, e.g. "Coffer Secrets". */
  readonly title: string
  readonly routes: ReadonlyArray<Route>
  /** Who is signed in; a refusal (401) means nobody. */
  readonly loadSession: () => Promise<S>
  readonly session: Context<Session<S>>
  /** The header's places for the signed-in person. */
  readonly navFor: (session: S) => ReadonlyArray<NavItem>
  /** The signed-in person's e-mail, shown in the header. */
  readonly emailOf: (session: S) => string
  /** What tells two people apart (a user id): another tab signing in someone else is noticed by it. */
  readonly idOf: (session: S) => string
  /** Where a path that is no page sends the person, e.g. the project list. */
  readonly home: NavItem
}

/** `ended`: a request found the session over while the person worked, which the sign-in page then says. */
const toSignIn = (ended = false) => {
  if (location.pathname === "/sign-in") return
  navigate(`/sign-in?returnTo=${encodeURIComponent(currentPath())}${ended ? "&error=ended" : ""}`, { replace: true })
}

export const AppShell = <S,>({
  title,
  routes,
  loadSession,
  session: SessionContext,
  navFor,
  emailOf,
  idOf,
  home,
}: AppShellProps<S>) => {
  const { pathname } = useLocation()
  const [current, setCurrent] = useState<S | undefined>()
  const [checked, setChecked] = useState(false)
  useEffect(() => {
    loadSession()
      .then(setCurrent)
      .catch(() => setCurrent(undefined))
      .finally(() => setChecked(true))
    return onUnauthorized(() => {
      setCurrent(undefined)
      toSignIn(true)
    })
  }, [])
  const matched = matchRoute(routes, pathname)
  const needsSignIn = checked && matched !== undefined && matched.route.public !== true && current === undefined
  useEffect(() => {
    if (needsSignIn) toSignIn()
  }, [needsSignIn])
  const change = useSessionWatch({ current, loadSession, idOf, emailOf })
  const session = useMemo(() => ({ current, setCurrent }), [current])
  const Page = matched?.route.page
  const pageTitle = matched === undefined ? "Not found" : matched.route.title(matched.params)
  useEffect(() => {
    document.title = `${pageTitle} – ${title}`
  }, [pageTitle, title])
  return (
    <SessionContext.Provider value={session}>
      <Layout
        title={title}
        nav={current === undefined ? [] : navFor(current)}
        user={current === undefined ? undefined : emailOf(current)}
        onSignedOut={() => {
          setCurrent(undefined)
          navigate("/sign-in", { replace: true })
        }}
      >
        {!checked || needsSignIn ? (
          <Loading what="your session" />
        ) : Page === undefined ? (
          <NotFound home={home} />
        ) : (
          <Page key={pathname} params={matched!.params} />
        )}
      </Layout>
      <Toasts />
      {change === undefined || current === undefined ? null : (
        <SessionChangedNotice change={change} page={emailOf(current)} />
      )}
    </SessionContext.Provider>
  )
}
