/**
 * `Cache-Control: no-store` on every response, errors, 404s and preflights included (seed 000 §1, DESIGN.md
 * "Security decisions"): answers carry credentials, secret values and permission-dependent data, none of
 * which a shared or browser cache may keep. The one exception sets its own policy and keeps it: the web app's
 * hashed assets (`../web/webApp.ts`), which hold no data and are immutable. Set by `presetHeaders.ts`.
 */
import type { HeaderList } from "./presetHeaders.js"

export const NO_STORE: HeaderList = [["Cache-Control", "no-store"]]
