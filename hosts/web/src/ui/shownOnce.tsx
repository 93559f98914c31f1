/**
 * A credential the server answers only once (an invite link, an API key): shown in full with a copy button and a
 * plain warning that it cannot be shown again, until the person closes it.
 */
import { CopyButton } from "./components.js"

export const ShownOnce = ({
  label,
  value,
  onDone,
}: {
  /** What the value is, e.g. "Invite link"; names the value and its copy button. */
  readonly label: string
  readonly value: string
  readonly onDone: () => void
}) => (
  <section class="notice stack" aria-label={label}>
    <p>
      <strong>{label}</strong>: shown only this once. Copy it now; it cannot be shown again.
    </p>
    <output class="secret-value" aria-label={`${label} value`}>
      {value}
    </output>
    <div class="row">
      <CopyButton value={value} label={`Copy the ${label.toLowerCase()}`} />
      <button type="button" class="button ghost" onClick={onDone}>
        Done
      </button>
    </div>
  </section>
)
