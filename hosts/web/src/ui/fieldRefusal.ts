/**
 * A refusal about one field that only the service could give, after the form was sent (a name taken elsewhere since
 * the list was loaded, a key it refuses): shown under the form as the action's refusal (an `Alert`), and tied to the
 * field until it goes, which its action does when the field changes (`setError(undefined)`) or the next attempt
 * succeeds: the field is marked invalid and reads the refusal as its description, as a field checked as it is typed
 * does. Without it a screen reader heard the refusal once, then found the field it was about saying nothing of it.
 *
 * ```tsx
 * const taken = useFieldRefusal()
 * const create = useAction(async () => {
 *   await createThing(name).catch((cause) => {
 *     throw isConflict(cause) ? taken.refuse(`“${name}” is taken`) : cause
 *   })
 * })
 * const refused = taken.shown(create.error)
 * <Field aria-invalid={refused} errorId={taken.errorId(create.error)} … />
 * <Alert error={create.error} id={taken.alertId} />
 * ```
 */
import { useId } from "preact/hooks"
import { describeError } from "../api/client.js"

/** The refusal an action throws for its field: an `Error` like any other to the `Alert` that shows it. */
class FieldRefused extends Error {
  constructor(
    /** The `useFieldRefusal` it belongs to, so that a form with two such fields ties each to its own. */
    readonly owner: string,
    message: string,
  ) {
    super(message)
  }
}

export interface FieldRefusal {
  /**
   * The error to throw from the form's action for a refusal about the field: `message` is what the `Alert` says,
   * by default the refusal's own sentence (`describeError(cause)`).
   */
  readonly refuse: (cause: unknown, message?: string) => Error
  /** Whether `error` (the action's, as it is now) is this field's refusal: the field's `aria-invalid`. */
  readonly shown: (error: unknown) => boolean
  /** The field's `errorId` while `error` is its refusal: its description then reads it. */
  readonly errorId: (error: unknown) => string | undefined
  /** The id of the form's `Alert` that shows the action's refusal. */
  readonly alertId: string
}

export const useFieldRefusal = (): FieldRefusal => {
  const alertId = useId()
  const shown = (error: unknown) => error instanceof FieldRefused && error.owner === alertId
  return {
    refuse: (cause, message) => new FieldRefused(alertId, message ?? describeError(cause)),
    shown,
    errorId: (error) => (shown(error) ? alertId : undefined),
    alertId,
  }
}
