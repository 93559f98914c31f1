/**
 * The built host a browser suite runs against: `serve --only <service>` started before the suite's tests and
 * stopped after them; `base` is the service's origin once it listens. With `database: "postgres behind a proxy"`
 * the host runs on a Postgres database of its own reached through a TCP proxy, which a test cuts to show what a
 * page says while the database is unreachable, or holds a row of it locked to interleave a change with a request.
 */
import { createPostgresDatabase, type PostgresDatabase, startProxyFor, type TcpProxy } from "@coffer/contract"
import { afterAll, beforeAll } from "vitest"
import { type Host, start } from "../host.js"

export type Service = "secrets" | "schemas"

export interface RunningService {
  /** The service's origin, e.g. `http://127.0.0.1:41234`; read it inside a hook or test. */
  readonly base: string
  readonly host: Host
}

export interface ServiceBehindProxy extends RunningService {
  /** Between the host and its database. */
  readonly proxy: TcpProxy
  /** The host's own database, reached directly (not through the proxy), for a test that holds a row lock. */
  readonly database: PostgresDatabase
}

export function useService(service: Service): RunningService
export function useService(service: Service, database: "postgres behind a proxy"): ServiceBehindProxy
export function useService(service: Service, database?: "postgres behind a proxy"): ServiceBehindProxy {
  let host: Host | undefined
  let proxy: TcpProxy | undefined
  let postgres: PostgresDatabase | undefined
  beforeAll(async () => {
    let env: Record<string, string> = {}
    if (database !== undefined) {
      postgres = await createPostgresDatabase(`e2e_${service}_pages`)
      const proxied = await startProxyFor(postgres.url, 5432)
      proxy = proxied.proxy
      env = { COFFER_DATABASE_URL: proxied.url }
    }
    host = await start({ args: ["serve", "--only", service], env })
  })
  afterAll(async () => {
    await host?.stop(database === undefined ? "SIGTERM" : "SIGKILL")
    await proxy?.close()
    await postgres?.drop()
  })
  const running = () => {
    if (host === undefined) throw new Error("useService: the host is not running (read it inside a hook or test)")
    return host
  }
  return {
    get base() {
      return running()[service]!
    },
    get host() {
      return running()
    },
    get proxy() {
      if (proxy === undefined) throw new Error("useService: no proxy (ask for one, and read it inside a hook or test)")
      return proxy
    },
    get database() {
      if (postgres === undefined)
        throw new Error("useService: no database (ask for one, and read it inside a hook or test)")
      return postgres
    },
  }
}
