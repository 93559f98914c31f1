/**
 * The probes a load balancer or orchestrator asks each service (seed 001 §4, and the same on the schemas service,
 * which may run alone with `--only schemas`): `/healthz` answers `ok` while the process runs, `/readyz` answers
 * `ok` when the database answers and the master key opens what it holds, 503 otherwise. Neither needs a credential
 * and neither is rate-limited: probes come every few seconds from the infrastructure's own address.
 */
import { Readiness as ReadinessCheck, StoreUnavailable } from "@coffer/kernel"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Hono } from "hono"
import { PUBLIC } from "../openapi/common.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import type { Handle } from "../runtime.js"

/** A probe that hangs is as bad as a failed one: load balancers need an answer, so it is bounded. */
const READINESS_TIMEOUT = Duration.seconds(2)

const TAG = "Service"
const Ok = { description: "`ok`", contentType: "text/plain" }

export const Liveness = endpoint({
  method: "GET",
  path: "/healthz",
  summary: "Liveness: `ok` while the process runs",
  tag: TAG,
  security: PUBLIC,
  responses: { 200: Ok },
})
export const Readiness = endpoint({
  method: "GET",
  path: "/readyz",
  summary: "Readiness: `ok` when the database is reachable",
  tag: TAG,
  security: PUBLIC,
  responses: { 200: Ok },
  errors: [503],
})

export const mountProbes = (app: Hono, handle: Handle<ReadinessCheck.Readiness>): void => {
  route(app, Liveness, (c) => c.text("ok"))
  route(app, Readiness, (c) =>
    handle(
      c,
      ReadinessCheck.Readiness.use((readiness) => readiness.check).pipe(
        Effect.timeoutOrElse({
          duration: READINESS_TIMEOUT,
          orElse: () => Effect.fail(new StoreUnavailable({ store: "database", message: "Readiness check timed out" })),
        }),
      ),
      () => c.text("ok"),
    ),
  )
}
