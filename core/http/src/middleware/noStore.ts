/**
 * `Cache-Control: no-store` on every response, errors, 404s and preflights included (seed 000 §1, DESIGN.md
 * "Security decisions"): answers carry credentials, secret values and permission-dependent data, none of
 * which a shared or browser cache may keep. Mounted first, so that it sees the final response whatever
 * happened inside. The one exception sets its own policy and keeps it: the web app's hashed assets
 * (`../web/webApp.ts`), which hold no data and are immutable. Set before the route (`presetHeaders.ts`).
 */
import type { MiddlewareHandler } from "hono"
import { withPresetHeaders } from "./presetHeaders.js"

const NO_STORE = [["Cache-Control", "no-store"]] as const

export const noStore = (): MiddlewareHandler => (c, next) => withPresetHeaders(c, next, NO_STORE)
