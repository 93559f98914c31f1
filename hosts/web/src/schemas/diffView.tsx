/** A line diff (`diff.ts`) as a table: each line marked added, removed or unchanged, in words as well as colour. */
import type { DiffLine } from "./diff.js"

const MARK = { same: " ", removed: "−", added: "+" } as const
const SAID = { same: "unchanged", removed: "removed", added: "added" } as const

export const DiffView = ({
  label,
  lines,
  added,
  removed,
}: {
  readonly label: string
  readonly lines: ReadonlyArray<DiffLine>
  readonly added: number
  readonly removed: number
}) => (
  <figure class="diff-figure">
    <figcaption>
      {label}: {added === 0 && removed === 0 ? "no differences" : `${added} added, ${removed} removed`}
    </figcaption>
    <div class="table-wrap">
      <table class="diff" aria-label={label}>
        <tbody>
          {lines.map((line, index) => (
            <tr key={index} class={`diff-${line.kind}`}>
              <td class="diff-number">{line.kind === "added" ? "" : line.before}</td>
              <td class="diff-number">{line.kind === "removed" ? "" : line.after}</td>
              <td class="diff-mark">
                <span aria-hidden="true">{MARK[line.kind]}</span>
                <span class="visually-hidden">{SAID[line.kind]}</span>
              </td>
              <td class="diff-text">{line.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </figure>
)
