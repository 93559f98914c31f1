/**
 * The dashboard's pages: one file each under `pages/`, registered here once. A version's schema has one route
 * per tab (`tabs/`). `navFor` is the header's links: tokens and the audit log only for admins.
 */
import type { SessionPermissions } from "../api/schemas.js"
import type { NavItem } from "../ui/layout.js"
import type { Params, Route } from "../ui/router.js"
import { SIGNED_IN_AGAIN_PATH, SignedInAgain } from "../ui/signedInAgain.js"
import { Audit } from "./pages/audit.js"
import { Platform } from "./pages/platform.js"
import { Platforms } from "./pages/platforms.js"
import { SchemaPage } from "./pages/schema.js"
import { SignIn } from "./pages/signIn.js"
import { Tokens } from "./pages/tokens.js"

const schemaTitle = (params: Params) => {
  const tab = params.tab ?? "content"
  return `${params.platform} ${params.version} · ${tab.charAt(0).toUpperCase()}${tab.slice(1)}`
}

export const routes: ReadonlyArray<Route> = [
  { path: "/sign-in", page: SignIn, public: true, title: () => "Sign in" },
  { path: SIGNED_IN_AGAIN_PATH, page: SignedInAgain, title: () => "Signed in again" },
  { path: "/", page: Platforms, title: () => "Platforms" },
  { path: "/platforms", page: Platforms, title: () => "Platforms" },
  { path: "/platforms/:platform", page: Platform, title: (params) => params.platform! },
  { path: "/platforms/:platform/versions/:version", page: SchemaPage, title: schemaTitle },
  { path: "/platforms/:platform/versions/:version/:tab", page: SchemaPage, title: schemaTitle },
  { path: "/tokens", page: Tokens, title: () => "API tokens" },
  { path: "/audit", page: Audit, title: () => "Audit log" },
]

export const navFor = (permissions: SessionPermissions): ReadonlyArray<NavItem> => [
  { href: "/platforms", label: "Platforms" },
  ...(permissions.manage
    ? [
        { href: "/tokens", label: "API tokens" },
        { href: "/audit", label: "Audit log" },
      ]
    : []),
]
