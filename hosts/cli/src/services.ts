/**
 * The two Coffer services as the command tells them apart: each answers a public instance description at a path
 * of its own, naming itself (seed 001 §3; the Schemas dashboard's `GET /api/_ui/v1/instance`).
 */
import * as Effect from "effect/Effect"
import type { CofferFailure } from "./failure.js"

export type Service = "secrets" | "schemas"

/** Each service's self-description, default port (the Node host's) and where its URL is given. */
const SERVICES = {
  secrets: {
    title: "Secrets",
    instancePath: "/api/instance",
    name: "coffer-secrets",
    port: 8788,
    given: "--url or COFFER_URL",
  },
  schemas: {
    title: "Schemas",
    instancePath: "/api/_ui/v1/instance",
    name: "coffer-schemas",
    port: 8787,
    given: "--schemas-url or COFFER_SCHEMAS_URL",
  },
} as const

const otherOf = (service: Service): Service => (service === "secrets" ? "schemas" : "secrets")

/** How to ask a URL for a path without a credential: `http.ts`'s exchange, handed in to keep the modules apart. */
type Ask = (
  endpoint: { readonly url: string; readonly token: string },
  method: string,
  path: string,
  options: { readonly anonymous: true },
) => Effect.Effect<unknown, CofferFailure>

/**
 * Whether `url` is the other service than `wanted`: its instance description, asked without a credential (the
 * key belongs to `wanted`), names it. Anything else (no answer, another server) counts as no.
 */
export const isOtherService = (url: string, wanted: Service, ask: Ask): Effect.Effect<boolean> => {
  const other = SERVICES[otherOf(wanted)]
  return ask({ url, token: "" }, "GET", other.instancePath, { anonymous: true }).pipe(
    Effect.map((body) => typeof body === "object" && body !== null && "name" in body && body.name === other.name),
    Effect.orElseSucceed(() => false),
  )
}

/** `url` is the other service: which one it is, which one `wanted` commands need, and where that URL is given. */
export const wrongService = (url: string, wanted: Service) => {
  const need = SERVICES[wanted]
  return (
    `${url} is the Coffer ${SERVICES[otherOf(wanted)].title} service; ${wanted} commands need the ${need.title} ` +
    `service (port ${need.port} by default): give its URL with ${need.given}`
  )
}
