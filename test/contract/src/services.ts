/**
 * Where the test suites find Postgres and Redis, and what happens when they are not there: outside CI the
 * suites that need them are skipped with a visible message; under `CI=true` an unreachable service fails the
 * run, so CI can never pass by skipping (DESIGN.md "Testing").
 */
import { connect } from "node:net"

export const postgresUrl = process.env.COFFER_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
export const redisUrl = process.env.COFFER_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** True when a TCP connection to the URL's host and port opens within `timeoutMs`. */
export const reachable = (url: string, defaultPort: number, timeoutMs = 1_000): Promise<boolean> => {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || defaultPort) })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
}

const available = async (name: string, url: string, defaultPort: number): Promise<boolean> => {
  if (await reachable(url, defaultPort)) return true
  const where = new URL(url).host
  if (process.env.CI === "true") throw new Error(`${name} is unreachable at ${where} and CI=true: refusing to skip`)
  console.warn(`[coffer tests] ${name} is unreachable at ${where}: its suites are skipped`)
  return false
}

/** Resolves once per test file; use with `describe.runIf(await hasPostgres())`. */
export const hasPostgres = () => available("Postgres", postgresUrl, 5432)
export const hasRedis = () => available("Redis", redisUrl, 6379)

/** A name unique to this run, for a Postgres database or a Redis key prefix of its own. */
export const runId = (kind: string) =>
  `coffer_test_${kind}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
