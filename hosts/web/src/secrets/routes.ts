/**
 * The Secrets app's pages: one file each under `pages/`, registered here once. `nav` is the header's links; the
 * tabs of a project's pages are `projectTabs` in `tabs.ts`. A new page adds a line to `routes` and, if it is a
 * place to go, one to `nav` or `projectTabs`.
 */
import type { NavItem } from "../ui/layout.js"
import type { Params, Route } from "../ui/router.js"
import { SIGNED_IN_AGAIN_PATH, SignedInAgain } from "../ui/signedInAgain.js"
import { ApiKeys } from "./pages/apiKeys.js"
import { Audit } from "./pages/audit.js"
import { CliLogin } from "./pages/cliLogin.js"
import { CompareEnvironments } from "./pages/compare.js"
import { Environments } from "./pages/environments.js"
import { History } from "./pages/history.js"
import { AcceptInvite } from "./pages/invite.js"
import { People } from "./pages/people.js"
import { Projects } from "./pages/projects.js"
import { ProjectSecrets } from "./pages/secrets.js"
import { SignIn } from "./pages/signIn.js"

const inProject =
  (page: string) =>
  (params: Params): string =>
    `${params.slug} · ${page}`

export const routes: ReadonlyArray<Route> = [
  { path: "/sign-in", page: SignIn, public: true, title: () => "Sign in" },
  { path: SIGNED_IN_AGAIN_PATH, page: SignedInAgain, title: () => "Signed in again" },
  { path: "/", page: Projects, title: () => "Projects" },
  { path: "/projects", page: Projects, title: () => "Projects" },
  { path: "/projects/:slug", page: ProjectSecrets, title: inProject("Secrets") },
  { path: "/projects/:slug/compare", page: CompareEnvironments, title: inProject("Compare") },
  { path: "/projects/:slug/environments", page: Environments, title: inProject("Environments") },
  {
    path: "/projects/:slug/environments/:env/secrets/:key/history",
    page: History,
    title: (params) => `${params.slug} · History of ${params.key} in ${params.env}`,
  },
  { path: "/projects/:slug/people", page: People, title: inProject("People") },
  { path: "/projects/:slug/audit", page: Audit, title: inProject("Audit log") },
  // Public: the page itself sends a signed-out person to sign in, keeping the token out of the address.
  { path: "/invite", page: AcceptInvite, public: true, title: () => "Join a project" },
  { path: "/api-keys", page: ApiKeys, title: () => "API keys" },
  // `coffer login --web` prints this page's address; signed out, the app shell sends the person to sign in and back.
  { path: "/cli-login", page: CliLogin, title: () => "Approve a command-line login" },
]

/** Where a lost person is sent, and where one signs in to: their projects. */
export const home: NavItem = { href: "/projects", label: "Go to your projects" }

export const nav: ReadonlyArray<NavItem> = [
  { href: "/projects", label: "Projects" },
  { href: "/api-keys", label: "API keys" },
]
