/**
 * The one middleware every request passes before its route, doing in order what three did: the request's
 * telemetry (`../observability/requestTelemetry.ts`: its log line, metrics and span see the final answer), the
 * headers every response carries (`../middleware/presetHeaders.ts`) and the client's resolution, remembered for
 * later (`../client/client.ts`).
 *
 * One layer rather than three: Hono runs each middleware as an async function awaiting the next, a promise and a
 * turn of the microtask queue per layer and request, which on a token-checked read served from memory is a
 * measurable share of its CPU (issue 10).
 */
import type { ManagedRuntime } from "effect"
import type { Context, MiddlewareHandler, Next } from "hono"
import { type ClientOptions, rememberClient } from "../client/client.js"
import { makePresetHeaders } from "../middleware/presetHeaders.js"
import type { SecurityHeadersOptions } from "../middleware/securityHeaders.js"
import { makeTelemetry } from "../observability/requestTelemetry.js"
import { matchedRoute, UNMATCHED_ROUTE } from "../observability/route.js"

export interface RequestFrameOptions<R, ER> extends SecurityHeadersOptions, ClientOptions {
  readonly runtime: ManagedRuntime.ManagedRuntime<R, ER>
}

export const requestFrame = <R, ER>(options: RequestFrameOptions<R, ER>): MiddlewareHandler => {
  const telemetry = makeTelemetry(options.runtime)
  const headers = makePresetHeaders(options)
  const client: ClientOptions = { peerAddress: options.peerAddress, trustedProxies: options.trustedProxies }
  const frame = async (c: Context, next: Next): Promise<void> => {
    const route = matchedRoute(c)
    const begun = telemetry.begin(c, route?.path ?? UNMATCHED_ROUTE)
    const id = headers.before(c, route?.handler)
    rememberClient(c, client)
    await next()
    headers.after(c, id)
    telemetry.end(c, begun)
  }
  return (c, next) => (telemetry.loaded() ? frame(c, next) : telemetry.load().then(() => frame(c, next)))
}
