/**
 * The Schemas dashboard: finds out who is signed in and what they may do (`get-session`), then shows the page
 * of the current path (`AppShell`). Token and audit pages are in the header only for people with the admin
 * permission.
 */
import { getSession } from "../api/schemas.js"
import { AppShell } from "../ui/appShell.js"
import { home } from "./paths.js"
import { navFor, routes } from "./routes.js"
import { SessionContext } from "./session.js"

export const App = () => (
  <AppShell
    title="Coffer Schemas"
    routes={routes}
    loadSession={getSession}
    session={SessionContext}
    navFor={(current) => navFor(current.permissions)}
    emailOf={(current) => current.session.user.email}
    idOf={(current) => current.session.user.id}
    home={home}
  />
)
