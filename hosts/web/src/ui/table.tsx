/**
 * A table of records in its own scrolling box (`tables.css`): a caption for screen readers, a header row, and
 * optionally a last column of row actions (buttons such as `RowAction`) with a header only screen readers hear.
 */
import type { ComponentChildren } from "preact"

/** A column's header: its words, or its words and classes such as `hide-narrow`. */
export type Column = string | { readonly label: string; readonly class: string }

export interface TableProps {
  readonly caption: ComponentChildren
  readonly columns: ReadonlyArray<Column>
  /** Adds the row-actions column. */
  readonly actions?: boolean
  /** One block per row on a phone, each cell under its column's name (`data-label`). */
  readonly stacked?: boolean
  /** The rows. */
  readonly children: ComponentChildren
}

export const Table = ({ caption, columns, actions = false, stacked = false, children }: TableProps) => (
  <div class="table-wrap">
    <table class={stacked ? "stacked" : undefined}>
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) =>
            typeof column === "string" ? (
              <th key={column} scope="col">
                {column}
              </th>
            ) : (
              <th key={column.label} scope="col" class={column.class}>
                {column.label}
              </th>
            ),
          )}
          {actions ? (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
)

/** A row's destructive action: a small, quiet danger button named for its row (`label`) beyond its word. */
export const RowAction = ({
  label,
  onClick,
  children,
}: {
  readonly label?: string
  readonly onClick: () => void
  readonly children: ComponentChildren
}) => (
  <button type="button" class="button danger ghost small" aria-label={label} onClick={onClick}>
    {children}
  </button>
)
