/**
 * The schemas service's domain routes, one module per resource of seed 000 §4. `mountSchemasRoutes` mounts them
 * all, the fixed paths before the parameterised ones (`/api/schemas` before `/api/{platform}`,
 * `/api/{platform}/versions` before `/api/{platform}/{version}`); the app mounts the sign-in routes first, so that
 * `/api/auth/…` is never read as a platform.
 */
import type { Hono } from "hono"
import { mountAudit } from "./audit.js"
import type { SchemasRoutes } from "./context.js"
import { mountDashboardPlatforms } from "./dashboard.js"
import { mountLineage } from "./lineage.js"
import { mountPlatforms } from "./platforms.js"
import { mountSchemas } from "./schemas.js"
import { mountTokens } from "./tokens.js"
import { mountVersions } from "./versions.js"

export {
  actorOf,
  CREDENTIALS_GROUP,
  DASHBOARD_PREFIX,
  type SchemasRouteServices,
  type SchemasRoutes,
} from "./context.js"

export const mountSchemasRoutes = (app: Hono, routes: SchemasRoutes): void => {
  mountDashboardPlatforms(app, routes)
  mountLineage(app, routes)
  mountTokens(app, routes)
  mountAudit(app, routes)
  mountPlatforms(app, routes)
  mountVersions(app, routes)
  mountSchemas(app, routes)
}
