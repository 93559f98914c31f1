/**
 * An HTTP client that speaks from a loopback address of its choosing (127.x.y.z), so that a test controls the
 * socket peer a host sees: per-address rate limits and the trusted-proxy rule are decided by it.
 */
import { randomInt } from "node:crypto"
import { request as httpRequest } from "node:http"
import { expect } from "vitest"

export interface Reply {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions that read them.
  readonly body: any
  readonly setCookie: ReadonlyArray<string>
}

/** A loopback address of this test's own, so that counts kept per client address in the shared Redis are ours. */
export const freshAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`

/** An HTTP client speaking from `localAddress`. */
export const clientFrom = (localAddress: string) => {
  const call = (
    base: string,
    method: string,
    path: string,
    options: { cookie?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    new Promise<Reply>((resolve, reject) => {
      const url = new URL(base)
      const body = options.body === undefined ? undefined : JSON.stringify(options.body)
      const headers: Record<string, string> = { ...options.headers }
      if (body !== undefined) headers["content-type"] = "application/json"
      if (options.cookie !== undefined) headers.cookie = options.cookie
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
      const req = httpRequest(
        { host: url.hostname, port: url.port, method, path, headers, localAddress },
        (response) => {
          let text = ""
          response.on("data", (chunk) => {
            text += chunk
          })
          response.on("end", () => {
            let parsed: unknown
            try {
              parsed = JSON.parse(text)
            } catch {
              parsed = undefined
            }
            const setCookie = response.headers["set-cookie"] ?? []
            resolve({ status: response.statusCode ?? 0, body: parsed, setCookie })
          })
        },
      )
      req.on("error", reject)
      req.end(body)
    })
  const devLogin = (base: string, email: string, headers?: Record<string, string>) =>
    call(base, "POST", "/api/auth/dev-login", { body: { email }, headers })
  const signIn = async (base: string, email: string, headers?: Record<string, string>) => {
    const response = await devLogin(base, email, headers)
    expect(response.status).toBe(200)
    return response.setCookie[0]!.split(";")[0]!
  }
  return { call, devLogin, signIn }
}
