/**
 * `Cache-Control: no-store` on every response, errors, 404s and preflights included (seed 000 §1, DESIGN.md
 * "Security decisions"): answers carry credentials, secret values and permission-dependent data, none of
 * which a shared or browser cache may keep. Mounted first, so that it sees the final response whatever
 * happened inside. The one exception sets its own policy and keeps it: the web app's hashed assets
 * (`../web/webApp.ts`), which hold no data and are immutable.
 */
import type { MiddlewareHandler } from "hono"

export const noStore = (): MiddlewareHandler => async (c, next) => {
  await next()
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store")
}
