/**
 * The Secrets app's pages: one file each under `pages/`, registered here once. `nav` is the header's links; the
 * tabs of a project's pages are `projectTabs` in `tabs.ts`. A new page adds a line to `routes` and, if it is a
 * place to go, one to `nav` or `projectTabs`.
 */
import type { NavItem } from "../ui/layout.js"
import type { Route } from "../ui/router.js"
import { ApiKeys } from "./pages/apiKeys.js"
import { Audit } from "./pages/audit.js"
import { CompareEnvironments } from "./pages/compare.js"
import { Environments } from "./pages/environments.js"
import { History } from "./pages/history.js"
import { AcceptInvite } from "./pages/invite.js"
import { People } from "./pages/people.js"
import { Projects } from "./pages/projects.js"
import { ProjectSecrets } from "./pages/secrets.js"
import { SignIn } from "./pages/signIn.js"

export const routes: ReadonlyArray<Route> = [
  { path: "/sign-in", page: SignIn, public: true },
  { path: "/", page: Projects },
  { path: "/projects", page: Projects },
  { path: "/projects/:slug", page: ProjectSecrets },
  { path: "/projects/:slug/compare", page: CompareEnvironments },
  { path: "/projects/:slug/environments", page: Environments },
  { path: "/projects/:slug/environments/:env/secrets/:key/history", page: History },
  { path: "/projects/:slug/people", page: People },
  { path: "/projects/:slug/audit", page: Audit },
  // Public: the page itself sends a signed-out person to sign in, keeping the token out of the address.
  { path: "/invite", page: AcceptInvite, public: true },
  { path: "/api-keys", page: ApiKeys },
]

/** Where a lost person is sent, and where one signs in to: their projects. */
export const home: NavItem = { href: "/projects", label: "Go to your projects" }

export const nav: ReadonlyArray<NavItem> = [
  { href: "/projects", label: "Projects" },
  { href: "/api-keys", label: "API keys" },
]
