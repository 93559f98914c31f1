/**
 * The dashboard's pages: one file each under `pages/`, registered here once. A version's schema has one route
 * per tab (`tabs/`). `navFor` is the header's links: tokens and the audit log only for admins.
 */
import type { SessionPermissions } from "../api/schemas.js"
import type { NavItem } from "../ui/layout.js"
import type { Route } from "../ui/router.js"
import { Audit } from "./pages/audit.js"
import { Platform } from "./pages/platform.js"
import { Platforms } from "./pages/platforms.js"
import { SchemaPage } from "./pages/schema.js"
import { SignIn } from "./pages/signIn.js"
import { Tokens } from "./pages/tokens.js"

export const routes: ReadonlyArray<Route> = [
  { path: "/sign-in", page: SignIn, public: true },
  { path: "/", page: Platforms },
  { path: "/platforms", page: Platforms },
  { path: "/platforms/:platform", page: Platform },
  { path: "/platforms/:platform/versions/:version", page: SchemaPage },
  { path: "/platforms/:platform/versions/:version/:tab", page: SchemaPage },
  { path: "/tokens", page: Tokens },
  { path: "/audit", page: Audit },
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
