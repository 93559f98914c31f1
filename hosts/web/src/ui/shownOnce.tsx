/**
 * A credential the server answers only once (an invite link, an API key, an API token): shown in full with a
 * copy button and a plain warning that it cannot be shown again, until the person closes it. In the page where
 * the person acted, or, given a `title`, as a dialog of its own, which a stray Escape does not close before the
 * value was copied.
 */
import type { ComponentChildren } from "preact"
import { useState } from "preact/hooks"
import { CopyButton, Dialog } from "./components.js"
import { SecretValue } from "./secretValue.js"

export interface ShownOnceProps {
  /** What the value is, e.g. "Invite link"; names the value and its copy button. */
  readonly label: string
  readonly value: string
  readonly onDone: () => void
  /** Shows it as a modal dialog with this title. */
  readonly title?: string
  /** A further word on the warning, e.g. that only a hash is kept. */
  readonly note?: ComponentChildren
  /** As a dialog, where the focus goes once it closes if the control that opened it cannot take it (`Dialog`). */
  readonly returnFocus?: () => HTMLElement | null | undefined
}

const Panel = ({
  label,
  value,
  onDone,
  note,
  modal,
  onCopied,
}: ShownOnceProps & { readonly modal: boolean; readonly onCopied?: () => void }) => (
  // A dialog is its own frame; in the page, the notice sets it apart from what is around it.
  <section class={modal ? "stack" : "notice stack"} aria-label={label}>
    <p>
      <strong>{label}</strong>: shown only this once. Copy it now; it cannot be shown again.
      {note === undefined ? null : <> {note}</>}
    </p>
    <SecretValue label={`${label} value`} value={value} />
    <div class="row">
      {/* A dialog opens on Copy, not on its Close button (the first it holds): Enter pressed by habit then copies
          the value rather than throwing it away unseen. In the page, the focus stays where the person acted. */}
      <CopyButton value={value} label={`Copy the ${label.toLowerCase()}`} onCopied={onCopied} autoFocus={modal} />
      <button type="button" class={modal ? "button primary" : "button ghost"} onClick={onDone}>
        Done
      </button>
    </div>
  </section>
)

/**
 * As a dialog, Escape or its close button before the value was copied does not close it at once (a key pressed
 * by habit would throw the credential away): it says so first. Done closes.
 */
const ShownOnceDialog = (props: ShownOnceProps & { readonly title: string }) => {
  const [copied, setCopied] = useState(false)
  const guard = copied
    ? undefined
    : { message: "Not copied yet: once this closes, it cannot be shown again.", discard: "Close without copying" }
  return (
    <Dialog title={props.title} onClose={props.onDone} guard={guard} returnFocus={props.returnFocus}>
      <Panel {...props} modal onCopied={() => setCopied(true)} />
    </Dialog>
  )
}

export const ShownOnce = (props: ShownOnceProps) =>
  props.title === undefined ? <Panel {...props} modal={false} /> : <ShownOnceDialog {...props} title={props.title} />
