/**
 * How far the `coffer` command on Node lets V8 grow its young generation (`COFFER_YOUNG_GENERATION_MB`).
 *
 * The young generation (new space: two semi-spaces where new objects live until a scavenge) starts at 2 MB, and V8
 * doubles it whenever much survives a scavenge, up to 32 MB on 64-bit. Loading the host's modules is such a time,
 * so an idle host kept a 32 MB young generation it never used again, a third of its resident memory; a large
 * export grew it likewise. Its ceiling, `--max-semi-space-size`, is read once, when the heap is made, so a process
 * cannot set it for itself; the growth factor, `--semi-space-growth-factor`, is read at every growth step, and is
 * the handle used here: no growth while the host starts, then growth again until the young generation reaches the
 * setting. V8 still shrinks it when allocation slows, and growth resumes below the setting.
 *
 * The size is looked at after each GC (a `gc` performance observer), so when two growing scavenges fall between two
 * turns of the event loop the young generation ends one doubling above the setting, and stays there until V8
 * shrinks it. Under Bun (JavaScriptCore) none of this applies and `@coffer/bun` does not call it.
 *
 * Imports only `node:` modules: it runs before the host's modules load, and loading them is what it holds back.
 */
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"

const MB = 1024 * 1024

/** V8's own growth factor, restored below the ceiling. */
const V8_GROWTH = 2

/** The young generation V8 starts with (two 1 MB semi-spaces on 64-bit): the smallest ceiling there is. */
export const MIN_YOUNG_GENERATION_MB = 2

/**
 * 8 MB: the token-checked read, the busiest path, then spends about as long in scavenges as with V8's 32 MB (they are
 * more frequent, each shorter: what survives is the same), while the idle host and a large export hold 24 MB less.
 */
export const DEFAULT_YOUNG_GENERATION_MB = 8

/** `0` (V8's own sizing) or a whole number of MB from 2; `undefined` when the text is neither. */
export const parseYoungGenerationMb = (raw: string): number | undefined => {
  if (!/^\d+$/.test(raw)) return undefined
  const mb = Number(raw)
  return Number.isSafeInteger(mb) && (mb === 0 || mb >= MIN_YOUNG_GENERATION_MB) ? mb : undefined
}

/** The parts of V8 this module uses, injectable so that its decisions can be tested without a fresh process. */
export interface YoungGenerationHeap {
  /** The young generation's size now (both semi-spaces), in bytes. */
  readonly size: () => number
  /** Sets `--semi-space-growth-factor`: 1 holds the size, 2 is V8's doubling. */
  readonly setGrowth: (factor: number) => void
  /** Calls `run` after each garbage collection; returns how to stop. */
  readonly afterGc: (run: () => void) => () => void
}

export const v8Heap: YoungGenerationHeap = {
  size: () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0,
  setGrowth: (factor) => setFlagsFromString(`--semi-space-growth-factor=${factor}`),
  afterGc: (run) => {
    const observer = new PerformanceObserver(run)
    observer.observe({ entryTypes: ["gc"] })
    return () => observer.disconnect()
  },
}

/**
 * Holds the young generation at its size until the returned `started` is called (the host is listening), then keeps
 * it growing up to `limitMb` only; `stop` returns growth to V8. Nothing is changed when `limitMb` is `0` or when
 * the setting is not valid (the settings check then stops the start, naming it).
 */
export const limitYoungGeneration = (
  setting: string | undefined,
  heap: YoungGenerationHeap = v8Heap,
): { readonly started: () => void; readonly stop: () => void } => {
  const raw = setting?.trim() ?? ""
  const limitMb = raw === "" ? DEFAULT_YOUNG_GENERATION_MB : parseYoungGenerationMb(raw)
  // Bun runs this file too when asked to (`bun coffer`), and its `node:v8` is not V8.
  if (limitMb === undefined || limitMb === 0 || "bun" in process.versions) {
    return { started: () => undefined, stop: () => undefined }
  }
  const limit = limitMb * MB
  heap.setGrowth(1)
  let holding = true
  let unobserve: (() => void) | undefined
  const keep = () => {
    const hold = heap.size() >= limit
    if (hold === holding) return
    holding = hold
    heap.setGrowth(hold ? 1 : V8_GROWTH)
  }
  return {
    started: () => {
      if (unobserve !== undefined) return
      unobserve = heap.afterGc(keep)
      keep()
    },
    stop: () => {
      unobserve?.()
      unobserve = undefined
      holding = false
      heap.setGrowth(V8_GROWTH)
    },
  }
}
