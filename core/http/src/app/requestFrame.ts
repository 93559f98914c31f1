/**
 * The one middleware every request passes before its route, doing in order what three did: the request's
 * telemetry (`../observability/requestTelemetry.ts`: its log line, metrics and span see the final answer), the
 * headers every response carries (`../middleware/presetHeaders.ts`) and the client's resolution, remembered for
 * later (`../client/client.ts`).
 *
 * One layer rather than three, and one that waits on nothing of its own: run by the app's chain (`./chain.ts`), a
 * route that answers synchronously (a token-checked read served from memory) is framed and answered within the
 * call, without a promise or a turn of the microtask queue, a measurable share of that read's CPU (issue 10).
 * Under Hono's own compose (the app mounted in another with `route`) its `next` is a promise, and it awaits it.
 */
import type * as ManagedRuntime from "effect/ManagedRuntime"
import type { Context, MiddlewareHandler } from "hono"
import { type ClientOptions, rememberClient } from "../client/client.js"
import { makePresetHeaders } from "../middleware/presetHeaders.js"
import type { SecurityHeadersOptions } from "../middleware/securityHeaders.js"
import { makeTelemetry } from "../observability/requestTelemetry.js"
import { matchedRoute, UNMATCHED_ROUTE } from "../observability/route.js"
import { type Passed, passesSynchronously } from "./chain.js"

export interface RequestFrameOptions<R, ER> extends SecurityHeadersOptions, ClientOptions {
  readonly runtime: ManagedRuntime.ManagedRuntime<R, ER>
}

export const requestFrame = <R, ER>(options: RequestFrameOptions<R, ER>): MiddlewareHandler => {
  const telemetry = makeTelemetry(options.runtime)
  const headers = makePresetHeaders(options)
  const client: ClientOptions = { peerAddress: options.peerAddress, trustedProxies: options.trustedProxies }
  const frame = (c: Context, next: () => Passed): Passed => {
    const route = matchedRoute(c)
    const begun = telemetry.begin(c, route?.path ?? UNMATCHED_ROUTE)
    const id = headers.before(c, route?.handler)
    rememberClient(c, client)
    const end = () => {
      headers.after(c, id)
      telemetry.end(c, begun)
    }
    const passed = next()
    return passed instanceof Promise ? passed.then(end) : end()
  }
  const handler = (c: Context, next: () => Passed): Passed =>
    telemetry.loaded() ? frame(c, next) : telemetry.load().then(() => frame(c, next))
  return passesSynchronously(handler) as MiddlewareHandler
}
