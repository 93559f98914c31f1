/**
 * How far the `coffer` command on Node lets V8 grow its heap: the young generation (`COFFER_YOUNG_GENERATION_MB`)
 * and the old one (`COFFER_OLD_GENERATION_GROWTH_PERCENT`). V8 sizes both for throughput, and for a host that idles
 * between bursts that meant holding memory it did not use.
 *
 * The young generation (new space: two semi-spaces where new objects live until a scavenge) starts at 2 MB, and V8
 * doubles it whenever much survives a scavenge, up to 32 MB on 64-bit. Loading the host's modules is such a time,
 * so an idle host kept a 32 MB young generation it never used again, a third of its resident memory; a large
 * export grew it likewise. Its ceiling, `--max-semi-space-size`, is read once, when the heap is made, so a process
 * cannot set it for itself; the growth factor, `--semi-space-growth-factor`, is read at every growth step, and is
 * the handle used here: no growth while the host starts, then growth again until the young generation reaches the
 * setting. V8 still shrinks it when allocation slows, and growth resumes below the setting. While it may grow, the
 * size is looked at after each GC (a `gc` performance observer), so when two growing scavenges fall between two turns
 * of the event loop the young generation ends one doubling above the setting, until V8 shrinks it. While it is held
 * it can only shrink, so a timer looks once a second instead: under load the observer's entries cost the busiest
 * path about 1% of its CPU (issue 10), a scavenge every few hundred requests.
 *
 * The old generation is collected when it reaches a limit V8 sets after each full collection: what was live times a
 * factor it picks between 1.1 and 4 from how fast it collects, and a small heap collects fast, so 4. After a burst
 * (the exports of 10,000 secrets) the host then held three times its live objects in garbage until the next
 * collection. `--heap-growing-percent`, read whenever the limit is set, fixes the factor instead.
 *
 * Under Bun (JavaScriptCore) none of this applies and `@coffer/bun` does not call it. This module imports only
 * `node:` modules: it runs before the host's modules load, and loading them is what it holds back.
 */
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"

const MB = 1024 * 1024

/** V8's own growth factor of the young generation, restored below the ceiling. */
const V8_GROWTH = 2

/** The young generation V8 starts with (two 1 MB semi-spaces on 64-bit): the smallest ceiling there is. */
export const MIN_YOUNG_GENERATION_MB = 2

/**
 * 16 MB, measured in alternating bursts against 8 and 32 (docs/PERFORMANCE.md, thirty-fifth session): the
 * token-checked read, the busiest path, took 0.92–0.93 of the CPU per request it took at 8 MB (fewer scavenges; what
 * survives each is the same), and 32 MB cost 1.15 times 16's (scavenges over more memory than the CPU's caches hold);
 * reads and writes of secrets did not move. The host idles at the same size (the young generation is held at 2 MB
 * until it listens), and after a burst it holds at most 16 MB more than V8's smallest until V8 gives it back.
 */
export const DEFAULT_YOUNG_GENERATION_MB = 16

/** 100: the old generation is collected when it has doubled since the last full collection, not quadrupled. */
export const DEFAULT_OLD_GENERATION_GROWTH_PERCENT = 100

/** `0` (V8's own sizing) or a whole number of MB from 2; `undefined` when the text is neither. */
export const parseYoungGenerationMb = (raw: string): number | undefined => {
  if (!/^\d+$/.test(raw)) return undefined
  const mb = Number(raw)
  return Number.isSafeInteger(mb) && (mb === 0 || mb >= MIN_YOUNG_GENERATION_MB) ? mb : undefined
}

/** `0` (V8's own factor) or a whole percentage from 1 to 1000; `undefined` when the text is neither. */
export const parseOldGenerationGrowthPercent = (raw: string): number | undefined => {
  if (!/^\d+$/.test(raw)) return undefined
  const percent = Number(raw)
  return percent <= 1000 ? percent : undefined
}

/** The parts of V8 this module uses, injectable so that its decisions can be tested without a fresh process. */
export interface V8Heap {
  /** The young generation's size now (both semi-spaces), in bytes. */
  readonly youngGenerationSize: () => number
  /** Sets a V8 flag, `--name=value`. */
  readonly setFlag: (flag: string) => void
  /** Calls `run` after each garbage collection; returns how to stop. */
  readonly afterGc: (run: () => void) => () => void
  /** Calls `run` every `ms` milliseconds without keeping the process alive; returns how to stop. */
  readonly every: (ms: number, run: () => void) => () => void
}

/** How often a held young generation is looked at for having shrunk. */
export const HELD_CHECK_MS = 1_000

export const v8Heap: V8Heap = {
  youngGenerationSize: () =>
    getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0,
  setFlag: (flag) => setFlagsFromString(flag),
  afterGc: (run) => {
    const observer = new PerformanceObserver(run)
    observer.observe({ entryTypes: ["gc"] })
    return () => observer.disconnect()
  },
  every: (ms, run) => {
    const timer = setInterval(run, ms)
    timer.unref()
    return () => clearInterval(timer)
  },
}

/** The settings this module reads, from the environment as the host sees it. */
export interface HeapGrowthSettings {
  readonly COFFER_YOUNG_GENERATION_MB?: string | undefined
  readonly COFFER_OLD_GENERATION_GROWTH_PERCENT?: string | undefined
}

/** The setting's value, its default when unset or empty, `undefined` when not valid. */
const setting = (raw: string | undefined, fallback: number, parse: (raw: string) => number | undefined) => {
  const trimmed = raw?.trim() ?? ""
  return trimmed === "" ? fallback : parse(trimmed)
}

/**
 * Sets the old generation's growth, and holds the young generation at its size until the returned `started` is
 * called (the host is listening), then keeps it growing up to its setting only; `stop` returns the young
 * generation's growth to V8. A setting that is `0` or not valid changes nothing here (the settings check then stops
 * the start, naming it).
 */
export const limitHeapGrowth = (
  env: HeapGrowthSettings,
  heap: V8Heap = v8Heap,
): { readonly started: () => void; readonly stop: () => void } => {
  const idle = { started: () => undefined, stop: () => undefined }
  // Bun runs this file too when asked to (`bun coffer`), and its `node:v8` is not V8.
  if ("bun" in process.versions) return idle
  const growthPercent = setting(
    env.COFFER_OLD_GENERATION_GROWTH_PERCENT,
    DEFAULT_OLD_GENERATION_GROWTH_PERCENT,
    parseOldGenerationGrowthPercent,
  )
  if (growthPercent !== undefined && growthPercent > 0) heap.setFlag(`--heap-growing-percent=${growthPercent}`)
  const limitMb = setting(env.COFFER_YOUNG_GENERATION_MB, DEFAULT_YOUNG_GENERATION_MB, parseYoungGenerationMb)
  if (limitMb === undefined || limitMb === 0) return idle
  const limit = limitMb * MB
  const growth = (factor: number) => heap.setFlag(`--semi-space-growth-factor=${factor}`)
  growth(1)
  let holding = true
  /** How the size is being watched since `started`: after each GC while growing, by the timer while held. */
  let unwatch: (() => void) | undefined
  const watch = () => {
    unwatch?.()
    unwatch = holding ? heap.every(HELD_CHECK_MS, keep) : heap.afterGc(keep)
  }
  const keep = () => {
    const hold = heap.youngGenerationSize() >= limit
    if (hold === holding) return
    holding = hold
    growth(hold ? 1 : V8_GROWTH)
    watch()
  }
  return {
    started: () => {
      if (unwatch !== undefined) return
      watch()
      keep()
    },
    stop: () => {
      unwatch?.()
      unwatch = undefined
      holding = false
      growth(V8_GROWTH)
    },
  }
}
