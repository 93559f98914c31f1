/**
 * The Secrets app: finds out who is signed in, then shows the page of the current path. Pages that need a
 * session send a signed-out person to `/sign-in?returnTo=<this page>`, and so does any request that finds the
 * session expired (401), so the person lands back where they were after signing in.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { onUnauthorized } from "../api/client.js"
import { me, type User } from "../api/secrets.js"
import { Loading } from "../ui/components.js"
import { Layout } from "../ui/layout.js"
import { currentPath, matchRoute, navigate, useLocation } from "../ui/router.js"
import { Toasts } from "../ui/toast.js"
import { NotFound } from "./pages/notFound.js"
import { nav, routes } from "./routes.js"
import { SessionContext } from "./session.js"

const toSignIn = () => {
  if (location.pathname === "/sign-in") return
  navigate(`/sign-in?returnTo=${encodeURIComponent(currentPath())}`, { replace: true })
}

export const App = () => {
  const { pathname } = useLocation()
  const [user, setUser] = useState<User | undefined>()
  const [checked, setChecked] = useState(false)
  useEffect(() => {
    me()
      .then((answer) => setUser(answer.user))
      .catch(() => setUser(undefined))
      .finally(() => setChecked(true))
    return onUnauthorized(() => {
      setUser(undefined)
      toSignIn()
    })
  }, [])
  const matched = matchRoute(routes, pathname)
  const needsSignIn = checked && matched !== undefined && matched.route.public !== true && user === undefined
  useEffect(() => {
    if (needsSignIn) toSignIn()
  }, [needsSignIn])
  const session = useMemo(() => ({ user, setUser }), [user])
  const Page = matched?.route.page
  return (
    <SessionContext.Provider value={session}>
      <Layout
        title="Coffer Secrets"
        nav={user === undefined ? [] : nav}
        user={user?.email}
        onSignedOut={() => {
          setUser(undefined)
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
