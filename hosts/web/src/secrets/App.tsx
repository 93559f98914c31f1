/**
 * The Secrets app: finds out who is signed in (`/api/auth/me`), then shows the page of the current path
 * (`AppShell`).
 */
import { me } from "../api/secrets.js"
import { AppShell } from "../ui/appShell.js"
import { home, nav, routes } from "./routes.js"
import { SessionContext } from "./session.js"

const currentUser = () => me().then((answer) => answer.user)

export const App = () => (
  <AppShell
    title="Coffer Secrets"
    routes={routes}
    loadSession={currentUser}
    session={SessionContext}
    navFor={() => nav}
    emailOf={(user) => user.email}
    idOf={(user) => user.id}
    home={home}
  />
)
