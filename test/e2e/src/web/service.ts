/**
 * The built host a browser suite runs against: `serve --only <service>` started before the suite's tests and
 * stopped after them; `base` is the service's origin once it listens.
 */
import { afterAll, beforeAll } from "vitest"
import { type Host, start } from "../host.js"

export type Service = "secrets" | "schemas"

export interface RunningService {
  /** The service's origin, e.g. `http://127.0.0.1:41234`; read it inside a hook or test. */
  readonly base: string
  readonly host: Host
}

export const useService = (service: Service): RunningService => {
  let host: Host | undefined
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", service] })
  })
  afterAll(() => host?.stop())
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
  }
}
