/**
 * The processes a command started, and theirs, so that stopping it stops them too. A command run through a
 * wrapper that does not pass SIGTERM on (`sh -c "build; serve"`: the shell forks the server and dies alone) would
 * otherwise leave its server running, holding the port the restarted one needs (`coffer secrets run --watch`).
 *
 * The tree is read from `ps`, as it is the moment before the signal: once a parent has gone, its children belong
 * to init and no longer name it. Where `ps` cannot be run (Windows), the command alone is stopped, as before.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

/** The processes below `pid` now, parents before their children; none when `ps` cannot say. */
export const descendantsOf = (pid: number): ReadonlyArray<number> => {
  let listing: string
  try {
    listing = execFileSync("ps", ["-A", "-o", "pid=,ppid="], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2_000,
    })
  } catch {
    return []
  }
  const children = new Map<number, Array<number>>()
  for (const line of listing.split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number)
    if (child === undefined || parent === undefined || !Number.isInteger(child) || !Number.isInteger(parent)) continue
    const known = children.get(parent)
    if (known === undefined) children.set(parent, [child])
    else known.push(child)
  }
  const found: Array<number> = []
  for (let next = children.get(pid) ?? []; next.length > 0; ) {
    found.push(...next)
    next = next.flatMap((child) => children.get(child) ?? [])
  }
  return found
}

/**
 * Whether process `pid` is still running. A zombie (ended, not yet reaped) has let go of what it held; it is one
 * for good where nobody reaps it, as under a `coffer` that runs as a container's PID 1, so it counts as ended.
 */
export const exists = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists, under another user (a setuid child).
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  return !isZombie(pid)
}

/** Whether `pid` is a zombie, as Linux's `/proc` says; elsewhere it cannot be told, and is taken not to be. */
const isZombie = (pid: number): boolean => {
  try {
    // The state follows the command name, which is in parentheses and may hold anything, parentheses included.
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z"
  } catch {
    return false
  }
}

/** Sends `signal` to each of `pids` that still exists; one gone meanwhile is no failure. */
export const signalEach = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone since the tree was read.
    }
  }
}
