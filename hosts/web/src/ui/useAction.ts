/**
 * What a person sets off (a form's submit, a button's click): `busy` while it runs, so the control cannot fire
 * twice, and its refusal as `error`, to be shown where the person acted. A success clears the refusal shown
 * before. An action that closes its own form (a dialog's confirmation) may leave the component unmounted: then
 * nothing is set afterwards.
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
  useEffect(() => {
    mounted.current = true
    return () => {
      mounted.current = false
    }
  }, [])
  const run = async (...args: A) => {
    setBusy(true)
    try {
      await act(...args)
      if (mounted.current) setError(undefined)
    } catch (cause) {
      if (mounted.current) setError(cause)
    } finally {
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
      void run(...([] as unknown as A))
    },
  }
}
