/**
 * A load's two sides on cores of their own: the measured server (all its threads) on the last core, this process,
 * which generates the load, on the others, and both back on every core afterwards (a process started later, such
 * as pgbench, is not confined).
 *
 * Left to the scheduler on this 2-core box, the server and the load generator moved between cores, and the same
 * build's CPU per request settled run after run at one of two levels (the token read at 38 or at 60 µs): a server
 * sharing a core with its client pays for the client's wake-ups as well as its own. Apart, the levels merge, and a
 * figure describes the server rather than the placement. The reference server is placed the same way, so the
 * ratio compares like with like. Only for a server alone on the box (`LoadOptions.apart`): one whose database
 * shares the cores (the secret paths) lost throughput confined to one core. Linux only (`taskset`, util-linux);
 * elsewhere, or with one core, nothing moves.
 */
import { execFileSync } from "node:child_process"
import { availableParallelism } from "node:os"

const place = (pid: number, cores: string): boolean => {
  try {
    execFileSync("taskset", ["--all-tasks", "--pid", "--cpu-list", cores, String(pid)], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** Runs `load` with `server` on the last core and this process on the others. */
export const onCoresApart = async <A>(server: number | undefined, load: () => Promise<A>): Promise<A> => {
  const cores = availableParallelism()
  const last = cores - 1
  if (server === undefined || cores < 2 || !place(server, String(last))) return load()
  place(process.pid, last === 1 ? "0" : `0-${last - 1}`)
  try {
    return await load()
  } finally {
    place(process.pid, `0-${last}`)
    place(server, `0-${last}`)
  }
}
