/**
 * A small history-API router: a routes table of `{ path, page }` (`:name` segments become params), `navigate`,
 * and `Link`, which keeps the browser's own behaviour for modified clicks (new tab, download).
 */
import type { ComponentChildren, ComponentType, JSX } from "preact"
import { useEffect, useState } from "preact/hooks"

export type Params = Readonly<Record<string, string>>

export interface Route {
  /** `/projects/:slug`; matched whole. */
  readonly path: string
  readonly page: ComponentType<{ readonly params: Params }>
  /** Reachable without signing in (the sign-in page itself). */
  readonly public?: boolean
  /** The browser tab's title before the app's name, so that tabs and history entries can be told apart. */
  readonly title: (params: Params) => string
}

type Listener = () => void
const listeners = new Set<Listener>()
const notify = () => {
  for (const listener of listeners) listener()
}
window.addEventListener("popstate", notify)

/**
 * Goes to `to`: a new history entry, unless `replace` asks otherwise or `to` is where the page already is (as the
 * browser does for a link to the current address), so that Back never stops at a copy of the same view.
 */
export const navigate = (to: string, options: { readonly replace?: boolean } = {}): void => {
  if (options.replace === true || new URL(to, location.href).href === location.href) history.replaceState(null, "", to)
  else history.pushState(null, "", to)
  window.scrollTo(0, 0)
  notify()
}

/** The current path and query; re-renders the caller on every navigation. */
export const useLocation = (): { readonly pathname: string; readonly search: URLSearchParams } => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1)
    listeners.add(listener)
    return () => listeners.delete(listener)
  }, [])
  return { pathname: location.pathname, search: new URLSearchParams(location.search) }
}

/** The route that matches `pathname` whole, with its params decoded. */
export const matchRoute = (
  routes: ReadonlyArray<Route>,
  pathname: string,
): { readonly route: Route; readonly params: Params } | undefined => {
  const parts = pathname.split("/").filter((part) => part !== "")
  for (const route of routes) {
    const pattern = route.path.split("/").filter((part) => part !== "")
    if (pattern.length !== parts.length) continue
    const params: Record<string, string> = {}
    const matches = pattern.every((part, index) => {
      const actual = parts[index]!
      if (part.startsWith(":")) {
        try {
          params[part.slice(1)] = decodeURIComponent(actual)
        } catch {
          return false
        }
        return true
      }
      return part === actual
    })
    if (matches) return { route, params }
  }
  return undefined
}

/**
 * A page's choice kept in the address's query (`?name=value`; none while empty), so that a reload or a link to the
 * page finds it again. The entry is replaced in place, never added: a keystroke in a filter is no step for Back.
 */
export const useQueryState = (name: string): [string | undefined, (value: string | undefined) => void] => {
  const [value, setValue] = useState(() => new URLSearchParams(location.search).get(name) ?? undefined)
  useEffect(() => {
    const query = new URLSearchParams(location.search)
    if (value === undefined || value === "") query.delete(name)
    else query.set(name, value)
    const text = query.toString()
    const to = `${location.pathname}${text === "" ? "" : `?${text}`}${location.hash}`
    if (to !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, "", to)
  }, [name, value])
  return [value, setValue]
}

/** The current path and query, for `returnTo`. */
export const currentPath = () => `${location.pathname}${location.search}`

/** A path on this site (the only `returnTo` the app follows); `localPath.ts` says what passes. */
export { localPath } from "./localPath.js"

/**
 * Whether a click on a link is the plain kind the page may take over: the primary button, no modifier. Ctrl, Cmd,
 * Shift, Alt or another button asks the browser for its own behaviour (a new tab or window, a download), which
 * needs the link's real address.
 */
export const isPlainClick = (event: MouseEvent) =>
  event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey

type LinkProps = JSX.HTMLAttributes<HTMLAnchorElement> & { readonly href: string; readonly children: ComponentChildren }

export const Link = ({ href, children, ...rest }: LinkProps) => (
  <a
    {...rest}
    href={href}
    onClick={(event) => {
      if (event.defaultPrevented || !isPlainClick(event)) return
      event.preventDefault()
      navigate(href)
    }}
  >
    {children}
  </a>
)
