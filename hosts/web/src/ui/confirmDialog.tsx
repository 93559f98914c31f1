/**
 * The confirmation before a change that cannot be undone (a deletion, a revocation, a rotation): what will
 * happen, optionally a name the person must type first (where much goes with it), Cancel, and the action's
 * button. A refusal stays in the dialog, where the person acted; the dialog closes only when `run` decides so.
 */
import type { ComponentChildren, ComponentType } from "preact"
import { useState } from "preact/hooks"
import { ApiError } from "../api/client.js"
import { ActionButton, Alert, Dialog, Field } from "./components.js"
import { toast } from "./toast.js"
import { useAction } from "./useAction.js"

export interface ConfirmDialogProps {
  readonly title: string
  /** What happens, and any fields the action takes. */
  readonly children: ComponentChildren
  /** The action button's words, e.g. "Delete project". */
  readonly action: string
  /** Text the person must type before the action is offered, e.g. the project's slug. */
  readonly typed?: string
  /** `danger` for what destroys, `primary` for what only replaces. */
  readonly tone?: "danger" | "primary"
  /** How a refusal is shown; `Alert` unless the service's refusal says more (the schemas that block a deletion). */
  readonly refusal?: ComponentType<{ readonly error: unknown }>
  readonly run: () => Promise<void>
  /**
   * Its target already gone (a 404: deleted elsewhere since the page was drawn, or out of the person's reach now):
   * for a deletion the outcome asked for, for any other change nothing left to act on; either way not a refusal to
   * show in the dialog. `after` brings the page up to date and closes the dialog, and `said` is the toast that tells
   * the person.
   */
  readonly gone?: { readonly said: string; readonly after: () => Promise<void> | void }
  readonly onClose: () => void
  /** For a dialog that shows much, such as a diff of what the action changes. */
  readonly wide?: boolean
}

export const ConfirmDialog = ({
  title,
  children,
  action,
  typed,
  tone = "danger",
  refusal: Refusal = Alert,
  run,
  gone,
  onClose,
  wide,
}: ConfirmDialogProps) => {
  const [confirmation, setConfirmation] = useState("")
  const { busy, error, submit } = useAction(async () => {
    try {
      await run()
    } catch (cause) {
      if (gone === undefined || !(cause instanceof ApiError && cause.status === 404)) throw cause
      await gone.after()
      toast(gone.said)
    }
  })
  return (
    <Dialog title={title} onClose={onClose} wide={wide}>
      <form class="stack" onSubmit={submit}>
        {children}
        {typed === undefined ? null : (
          // Where the person starts: the action waits for the name, so the dialog opens on its field, not on Close.
          <Field
            label={`Type ${typed} to confirm`}
            name="confirm"
            autoFocus
            autoComplete="off"
            value={confirmation}
            onInput={(event) => setConfirmation(event.currentTarget.value)}
          />
        )}
        <Refusal error={error} />
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <ActionButton
            type="submit"
            class={`button ${tone}`}
            busy={busy}
            blocked={typed !== undefined && confirmation !== typed}
          >
            {action}
          </ActionButton>
        </div>
      </form>
    </Dialog>
  )
}
