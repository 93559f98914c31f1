/**
 * Requests by method, route template and status, and how long they took, through Effect's `Metric`. The
 * middleware updates them synchronously in the runtime's registry (no Effect run per request), and each
 * labelled series is made once and kept: routes, methods and statuses are closed sets (`route.ts`).
 */
import type * as Context from "effect/Context"
import * as Metric from "effect/Metric"

const requests = Metric.counter("coffer_http_requests_total", {
  description: "HTTP requests answered, by method, route template and status",
  incremental: true,
})

const duration = Metric.histogram("coffer_http_request_duration_seconds", {
  description: "Time from a request's arrival to its answer, in seconds, by method, route template and status",
  boundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
})

interface Series {
  readonly requests: Metric.Metric<number, unknown>
  readonly duration: Metric.Metric<number, unknown>
}

/** A recorder for one app: `record(context, method, route, status, seconds)`. */
export const makeHttpMetrics = () => {
  // By route, then status, then method: the three are kept strings (route templates, labels), so each lookup
  // reuses their hashes, where one key made of the three would be a new string, hashed, on every request.
  const series = new Map<string, Map<number, Map<string, Series>>>()
  const seriesFor = (method: string, route: string, status: number): Series => {
    let byStatus = series.get(route)
    if (byStatus === undefined) {
      byStatus = new Map()
      series.set(route, byStatus)
    }
    let byMethod = byStatus.get(status)
    if (byMethod === undefined) {
      byMethod = new Map()
      byStatus.set(status, byMethod)
    }
    let found = byMethod.get(method)
    if (found === undefined) {
      const attributes = { method, route, status: String(status) }
      found = {
        requests: Metric.withAttributes(requests, attributes),
        duration: Metric.withAttributes(duration, attributes),
      }
      byMethod.set(method, found)
    }
    return found
  }
  return (context: Context.Context<never>, method: string, route: string, status: number, seconds: number) => {
    const { requests, duration } = seriesFor(method, route, status)
    requests.updateUnsafe(1, context)
    duration.updateUnsafe(seconds, context)
  }
}
