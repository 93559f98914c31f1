/**
 * Shell commands a page hands to a person to run elsewhere (a terminal, a CI job), each under its label with a
 * button that copies it. They wrap rather than scroll, so a phone shows them whole and no box needs a keyboard to
 * scroll (axe's `scrollable-region-focusable`).
 */
import { CopyButton } from "./components.js"

export interface Command {
  /** What it is for, e.g. "With curl"; names its copy button too. */
  readonly label: string
  readonly command: string
}

export const CommandList = ({ commands }: { readonly commands: ReadonlyArray<Command> }) => (
  <dl class="commands">
    {commands.map(({ label, command }) => (
      <div key={label}>
        <dt>{label}</dt>
        <dd>
          <pre class="code command">{command}</pre>
          <CopyButton value={command} label={`Copy: ${label}`} small />
        </dd>
      </div>
    ))}
  </dl>
)
