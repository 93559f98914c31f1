/** Loads something when its inputs change: data, the refusal if any, and `reload` after a change. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"

export interface Async<T> {
  readonly data: T | undefined
  readonly error: unknown
  readonly loading: boolean
  readonly reload: () => Promise<void>
}

export const useAsync = <T>(load: () => Promise<T>, inputs: ReadonlyArray<unknown>): Async<T> => {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  })
  const latest = useRef(0)
  /** The `run` whose inputs the data was loaded for. */
  const loadedBy = useRef<unknown>(undefined)
  // `inputs` are the caller's dependencies: `load` changes with them.
  const run = useCallback(async () => {
    const call = ++latest.current
    setState((previous) => ({ ...previous, loading: true }))
    try {
      const data = await load()
      if (call !== latest.current) return
      loadedBy.current = run
      setState({ data, error: undefined, loading: false })
    } catch (error) {
      if (call !== latest.current) return
      // A failed reload keeps what was shown beside its refusal; data loaded for other inputs is not shown under
      // these (a diff of the last pair of versions labelled with the new pair).
      const kept = loadedBy.current === run
      setState((previous) => ({ data: kept ? previous.data : undefined, error, loading: false }))
    }
  }, inputs)
  useEffect(() => {
    void run()
  }, [run])
  return { ...state, reload: run }
}
