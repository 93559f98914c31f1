/**
 * The Schemas dashboard: finds out who is signed in and what they may do (`get-session`), then shows the page
 * of the current path. Pages that need a session send a signed-out person to `/sign-in?returnTo=<this page>`,
 * and so does any request that finds the session expired (401). Token and audit pages are in the header only for
 * people with the admin permission.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { onUnauthorized } from "../api/client.js"
import { getSession, type SchemasSession } from "../api/schemas.js"
import { Loading } from "../ui/components.js"
import { Layout } from "../ui/layout.js"
import { currentPath, matchRoute, navigate, useLocation } from "../ui/router.js"
import { Toasts } from "../ui/toast.js"
import { NotFound } from "./pages/notFound.js"
import { navFor, routes } from "./routes.js"
import { SessionContext } from "./session.js"

const toSignIn = () => {
  if (location.pathname === "/sign-in") return
  navigate(`/sign-in?returnTo=${encodeURIComponent(currentPath())}`, { replace: true })
}

export const App = () => {
  const { pathname } = useLocation()
  const [current, setCurrent] = useState<SchemasSession | undefined>()
  const [checked, setChecked] = useState(false)
  useEffect(() => {
    getSession()
      .then(setCurrent)
      .catch(() => setCurrent(undefined))
      .finally(() => setChecked(true))
    return onUnauthorized(() => {
      setCurrent(undefined)
      toSignIn()
    })
  }, [])
  const matched = matchRoute(routes, pathname)
  const needsSignIn = checked && matched !== undefined && matched.route.public !== true && current === undefined
  useEffect(() => {
    if (needsSignIn) toSignIn()
  }, [needsSignIn])
  const session = useMemo(() => ({ current, setCurrent }), [current])
  const Page = matched?.route.page
  return (
    <SessionContext.Provider value={session}>
      <Layout
        title="Coffer Schemas"
        nav={current === undefined ? [] : navFor(current.permissions)}
        user={current?.session.user.email}
        onSignedOut={() => {
          setCurrent(undefined)
          navigate("/sign-in", { replace: true })
        }}
      >
        {!checked || needsSignIn ? (
          <Loading what="your session" />
        ) : Page === undefined ? (
          <NotFound />
        ) : (
          <Page key={pathname} params={matched!.params} />
        )}
      </Layout>
      <Toasts />
    </SessionContext.Provider>
  )
}
