/** The frame of every page: a skip link, the header with the app's places and the person, and the main area. */
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { post } from "../api/client.js"
import { ActionButton, Alert } from "./components.js"
import { rescueFocus } from "./focusRescue.js"
import { focusNewPage } from "./pageFocus.js"
import { Link, useLocation } from "./router.js"
import { useAction } from "./useAction.js"

/** A place the header links to. */
export interface NavItem {
  readonly href: string
  readonly label: string
}

export interface LayoutProps {
  readonly title: string
  readonly nav: ReadonlyArray<NavItem>
  /** The signed-in person's e-mail, or `undefined` when signed out. */
  readonly user: string | undefined
  readonly onSignedOut: () => void
  readonly logoutPath?: string
  readonly children: ComponentChildren
}

export const Layout = ({ title, nav, user, onSignedOut, logoutPath, children }: LayoutProps) => {
  const { pathname } = useLocation()
  // "/" is the first place of the header under another address (the projects, the platforms), where the brand
  // link and a sign-in without a way back lead: the header says so there too.
  const at = pathname === "/" ? (nav[0]?.href ?? pathname) : pathname
  // Busy while the service ends the session: pressed again meanwhile (nothing seemed to happen yet), it sent a
  // second sign-out.
  const signOut = useAction(async () => {
    await post(logoutPath ?? "/api/auth/logout")
    onSignedOut()
  })
  const main = useRef<HTMLElement>(null)
  useEffect(() => rescueFocus(main.current!), [])
  // Another page, not the first one shown (where the browser starts at the top) nor a change of the query alone
  // (a filter applied, a page of a list: the focus stays on what applied it).
  const shown = useRef(pathname)
  useEffect(() => {
    if (shown.current === pathname) return
    shown.current = pathname
    return focusNewPage(main.current!)
  }, [pathname])
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link class="brand" href="/">
          {title}
        </Link>
        {nav.length === 0 ? null : (
          <nav aria-label="Main">
            {nav.map((item) => (
              <Link
                key={item.href}
                href={item.href}
                aria-current={at === item.href || at.startsWith(`${item.href}/`) ? "page" : undefined}
              >
                {item.label}
              </Link>
            ))}
          </nav>
        )}
        {user === undefined ? null : (
          <div class="who">
            <span class="muted">{user}</span>
            <ActionButton type="button" class="button ghost" busy={signOut.busy} onClick={signOut.submit}>
              Sign out
            </ActionButton>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        <Alert error={signOut.error} />
        {children}
      </main>
    </>
  )
}
