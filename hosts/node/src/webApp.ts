/**
 * Loading a service's built web app (`@coffer/web`, `dist/<service>/`) into memory for `AppOptions.web`. The
 * files are few and small, and reading them once at start keeps serving free of file-system calls and of any
 * path a request could steer. A missing build (a checkout where `pnpm build` has not run the web package)
 * serves no app: the API works as with `COFFER_WEB=off`, and the host says so in one line.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import type { WebApp, WebFile } from "@coffer/http"
import { webAppDirectory } from "@coffer/web"

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
}

const filesUnder = (directory: string): Array<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : []
  })

/** The app built in `directory`, or `undefined` when it has no `index.html`. */
export const loadWebAppFrom = (directory: string): WebApp | undefined => {
  const indexPath = join(directory, "index.html")
  if (!existsSync(indexPath)) return undefined
  const files = new Map<string, WebFile>()
  for (const path of filesUnder(directory)) {
    if (path === indexPath) continue
    const type = MEDIA_TYPES[extname(path)] ?? "application/octet-stream"
    files.set(`/${relative(directory, path).split(sep).join("/")}`, { body: readFileSync(path), type })
  }
  return { index: readFileSync(indexPath), files }
}

/** The built app of `service`, or `undefined` when it has not been built. */
export const loadWebApp = (service: string): WebApp | undefined => loadWebAppFrom(webAppDirectory(service))
