/**
 * Serving a service's single-page web app (DESIGN.md "Web apps") beside its API, from files the host read at
 * start. Web-standard only: the host (Node or Bun) loads the built files of `@coffer/web`; this module decides
 * what answers which path.
 *
 * - `/` and every app path answer the app's `index.html` with `no-store`, so a new deployment is picked up at the
 *   next load; the page's router decides what the path shows (an unknown one gets the app's own "not found").
 * - Files under `/assets/` carry a content hash in their names (Vite's output), so they are cached for a year.
 *   A missing asset is a JSON 404, never the page: a `<script>` must not receive HTML.
 * - Reserved paths (`/api/*`, `/healthz`, `/readyz`, `/openapi.json`, `/docs`, `/metrics`) never reach this: the
 *   app is the not-found handler, so no route is shadowed, and an unknown API path stays a JSON 404. Nor do paths
 *   with an empty segment (`//api/…`), which no page has.
 * - Pages get their own content security policy: `'self'` and nothing inline; API responses keep `default-src
 *   'none'` from `securityHeaders`, which leaves a policy a response already has in place.
 */

/** One built file: its bytes and its media type. */
export interface WebFile {
  readonly body: Uint8Array
  readonly type: string
}

/** A built app as the host loaded it. */
export interface WebApp {
  /** The app's `index.html`, answered for `/` and every app path. */
  readonly index: Uint8Array
  /** Every other built file by its path from the site root, e.g. `/assets/index-3f2a1b.js`. */
  readonly files: ReadonlyMap<string, WebFile>
}

export const PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/** Hashed names change with their content, so a year is safe. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable"

/** Paths that belong to the service, never to the app. */
const RESERVED = ["/api", "/healthz", "/readyz", "/openapi.json", "/docs", "/metrics"]

/** The folder of Vite's hashed output. */
const ASSETS = "/assets/"

export const isReservedPath = (path: string): boolean =>
  RESERVED.some((reserved) => path === reserved || path.startsWith(`${reserved}/`))

/**
 * Whether `path` could be a page's: no empty segment inside it. `//api/projects/x` is no page of the app, and a
 * client that joined a base URL ending in `/` with `/api/…` must read the API's JSON 404, not a page with 200.
 * (Dot segments never get here: the URL parser resolves them, `%2e%2e` included, before any route is matched.)
 */
const isPlainPath = (path: string): boolean => {
  const segments = path.split("/")
  return segments.every((segment, index) => segment !== "" || index === 0 || index === segments.length - 1)
}

const body = (method: string, bytes: Uint8Array) => (method === "HEAD" ? null : (bytes as Uint8Array<ArrayBuffer>))

/**
 * The app's answer for a request no route took, or `undefined` when it is not the app's to answer (a write,
 * a reserved path, a missing asset): the caller then answers its JSON 404.
 */
export const webResponse = (web: WebApp, method: string, path: string): Response | undefined => {
  if ((method !== "GET" && method !== "HEAD") || isReservedPath(path) || !isPlainPath(path)) return undefined
  const file = web.files.get(path)
  if (file !== undefined) {
    const cacheControl = path.startsWith(ASSETS) ? IMMUTABLE_CACHE_CONTROL : "no-store"
    return new Response(body(method, file.body), {
      headers: { "Content-Type": file.type, "Cache-Control": cacheControl },
    })
  }
  if (path.startsWith(ASSETS)) return undefined
  return new Response(body(method, web.index), {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": PAGE_CONTENT_SECURITY_POLICY,
    },
  })
}
