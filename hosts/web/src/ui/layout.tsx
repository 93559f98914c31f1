/** The frame of every page: a skip link, the header with the app's places and the person, and the main area. */
import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { post } from "../api/client.js"
import { Alert } from "./components.js"
import { rescueFocus } from "./focusRescue.js"
import { focusNewPage } from "./pageFocus.js"
import { Link, useLocation } from "./router.js"

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
  const [error, setError] = useState<unknown>()
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
            <button
              type="button"
              class="button ghost"
              onClick={async () => {
                try {
                  await post(logoutPath ?? "/api/auth/logout")
                  onSignedOut()
                } catch (cause) {
                  setError(cause)
                }
              }}
            >
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        <Alert error={error} />
        {children}
      </main>
    </>
  )
}
