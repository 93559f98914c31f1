/**
 * What a person sets off (a form's submit, a button's click): `busy` while it runs, so the control cannot fire
 * twice (a form's submit is ignored meanwhile; `ActionButton` ignores presses), and its refusal as `error`, to be
 * shown where the person acted. A success clears the refusal shown before. An action that closes its own form (a
 * dialog's confirmation) may leave the component unmounted: then nothing is set afterwards.
 */
import { useEffect, useRef, useState } from "preact/hooks"

export interface Action<A extends ReadonlyArray<unknown>> {
  readonly busy: boolean
  readonly error: unknown
  /** Shows a refusal found before the action ran (a check of what was typed), or clears it. */
  readonly setError: (error: unknown) => void
  /** Runs the action once; resolves when it settled, never rejects. */
  readonly run: (...args: A) => Promise<void>
  /** A form's `onSubmit`: the page stays, and the action runs. */
  readonly submit: (event: Event) => void
}

export const useAction = <A extends ReadonlyArray<unknown> = []>(act: (...args: A) => Promise<unknown>): Action<A> => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const mounted = useRef(true)
  // Read at once, unlike `busy`, which changes on the next render: Enter pressed twice in a field sends once.
  const running = useRef(false)
  useEffect(() => {
    mounted.current = true
    return () => {
      mounted.current = false
    }
  }, [])
  const run = async (...args: A) => {
    running.current = true
    setBusy(true)
    try {
      await act(...args)
      if (mounted.current) setError(undefined)
    } catch (cause) {
      if (mounted.current) setError(cause)
    } finally {
      running.current = false
      if (mounted.current) setBusy(false)
    }
  }
  return {
    busy,
    error,
    setError,
    run,
    submit: (event) => {
      event.preventDefault()
      if (!running.current) void run(...([] as unknown as A))
    },
  }
}
