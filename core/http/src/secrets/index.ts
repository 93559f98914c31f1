/**
 * The secrets service's domain routes, one module per resource of seed 001 §4. `mountSecretsRoutes` mounts them
 * all; the app mounts the sign-in routes first, so that no parameterised path here can shadow them.
 */
import type { Hono } from "hono"
import { mountApiKeys } from "./apiKeys.js"
import { mountAuditLog } from "./audit.js"
import { mountCliLogins } from "./cliLogins.js"
import type { SecretsRoutes } from "./context.js"
import { mountEnvironments } from "./environments.js"
import { mountPeople } from "./people.js"
import { mountProjects } from "./projects.js"
import { mountSecrets } from "./secrets.js"

export { actorOf, CREDENTIALS_GROUP, type SecretsRouteServices, type SecretsRoutes } from "./context.js"
export { ACCEPT_INVITE_PATH } from "./people.js"

export const mountSecretsRoutes = (app: Hono, routes: SecretsRoutes): void => {
  mountProjects(app, routes)
  mountPeople(app, routes)
  mountEnvironments(app, routes)
  mountSecrets(app, routes)
  mountApiKeys(app, routes)
  mountCliLogins(app, routes)
  mountAuditLog(app, routes)
}
