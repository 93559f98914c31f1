/**
 * `GET /metrics` (issue 16): the service's metrics in Prometheus' text format, read from the registry of its own
 * runtime, so each service's port shows its own. Only when a token is configured (`COFFER_METRICS_TOKEN`): without
 * one the path is not mounted and answers 404 like any unknown path. A scrape must send `Authorization: Bearer
 * <token>`, compared in constant time; anything else is 401.
 *
 * The encoder is Effect's own (`PrometheusMetrics`), loaded at the first scrape: a service nobody scrapes does not
 * carry it.
 */
import { Hasher, Unauthorized } from "@coffer/kernel"
import type * as Context from "effect/Context"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import type { Hono } from "hono"
import { bearerToken } from "../auth/credentials.js"
import { errorResponse } from "../errors.js"
import { endpoint } from "../openapi/endpoint.js"
import { route } from "../openapi/route.js"
import { header } from "../request/header.js"

export const METRICS_PATH = "/metrics"

/** The media type of Prometheus' text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** The registry of `context` in Prometheus' text format. */
export const prometheusText = async (context: Context.Context<never>): Promise<string> => {
  const { formatUnsafe } = await import("effect/observability/PrometheusMetrics")
  return formatUnsafe(context)
}

export const GetMetrics = endpoint({
  method: "GET",
  path: METRICS_PATH,
  summary: "Metrics in Prometheus' text format",
  description:
    "Mounted only when `COFFER_METRICS_TOKEN` is set (404 otherwise); the scrape sends it as a bearer token.",
  tag: "Service",
  security: ["metrics"],
  responses: { 200: { description: "The metrics", contentType: "text/plain" } },
})

export const mountMetrics = <R, ER>(
  app: Hono,
  runtime: ManagedRuntime.ManagedRuntime<R, ER>,
  token: Redacted.Redacted<string> | undefined,
): void => {
  if (token === undefined) return
  route(app, GetMetrics, async (c) => {
    const given = bearerToken(header(c, "Authorization") ?? "")
    if (given === undefined || !Hasher.timingSafeEqual(given, Redacted.value(token))) {
      c.header("WWW-Authenticate", "Bearer")
      return errorResponse(c, new Unauthorized({ message: "A metrics token is required" }))
    }
    const text = await prometheusText((await runtime.context()) as Context.Context<never>)
    return c.body(text, 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE })
  })
}
