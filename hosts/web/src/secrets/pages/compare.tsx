/**
 * Compare two environments (issue 12 §5): which keys each has, keys only by default; a row's values are read
 * (two audited reads) only when the person reveals them, and then said to be the same or different.
 */
import { useMemo, useState } from "preact/hooks"
import { listSecrets, readSecret } from "../../api/secrets.js"
import { ActionButton, Alert, Loading, Select } from "../../ui/components.js"
import type { Params } from "../../ui/router.js"
import { Table } from "../../ui/table.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { buildRows, type GridRow } from "../grid.js"
import { type ProjectData, ProjectFrame } from "../projectFrame.js"

type Values = readonly [string | undefined, string | undefined]

const CompareRow = ({
  row,
  slug,
  names,
}: {
  readonly row: GridRow
  readonly slug: string
  readonly names: readonly [string, string]
}) => {
  const [values, setValues] = useState<Values>()
  const [left, right] = row.cells
  const reveal = useAction(async () => {
    const read = (name: string, present: boolean) =>
      present ? readSecret(slug, name, row.key).then((secret) => secret.value) : undefined
    setValues([await read(names[0], left !== undefined), await read(names[1], right !== undefined)])
  })
  const verdict =
    values === undefined
      ? left === undefined
        ? `only in ${names[1]}`
        : right === undefined
          ? `only in ${names[0]}`
          : "in both"
      : values[0] === values[1]
        ? "same value"
        : left === undefined || right === undefined
          ? `only in ${left === undefined ? names[1] : names[0]}`
          : "different values"
  return (
    <tr>
      <th scope="row" class="mono wraps">
        {row.key}
      </th>
      {[left, right].map((cell, index) => (
        <td key={names[index]} data-label={names[index]}>
          {values !== undefined && cell !== undefined ? (
            <pre class="secret-value">{values[index] === "" ? "(empty)" : values[index]}</pre>
          ) : (
            <span class={`badge ${cell === undefined ? "missing" : "present"}`}>
              {cell === undefined ? "missing" : "present"}
            </span>
          )}
        </td>
      ))}
      {/* Kept whole: beside a long key or value, "only in development" broke as "developmen" and "t". */}
      <td data-label="Comparison" class="nowrap">
        {verdict}
      </td>
      <td class="right">
        {values === undefined ? (
          <ActionButton
            type="button"
            class="button small"
            busy={reveal.busy}
            aria-label={`Reveal ${row.key} in ${names[0]} and ${names[1]}`}
            onClick={() => reveal.run()}
          >
            Reveal
          </ActionButton>
        ) : (
          <button
            type="button"
            class="button small"
            aria-label={`Hide ${row.key}`}
            onClick={() => setValues(undefined)}
          >
            Hide
          </button>
        )}
        <Alert error={reveal.error} />
      </td>
    </tr>
  )
}

const Compare = ({ data }: { readonly data: ProjectData }) => {
  const { project, environments } = data
  const [leftName, setLeftName] = useState(environments[0]?.name ?? "")
  const [rightName, setRightName] = useState(environments[1]?.name ?? environments[0]?.name ?? "")
  const [differencesOnly, setDifferencesOnly] = useState(false)
  const lists = useAsync(
    () => Promise.all([listSecrets(project.slug, leftName), listSecrets(project.slug, rightName)]),
    [project.slug, leftName, rightName],
  )
  const rows = useMemo(() => buildRows((lists.data ?? []).map((answer) => answer.secrets)), [lists.data])
  const shown = differencesOnly ? rows.filter((row) => row.cells[0] === undefined || row.cells[1] === undefined) : rows
  if (environments.length < 2) return <p class="notice">Comparing needs two environments; this project has fewer.</p>
  return (
    <>
      <div class="toolbar">
        {/* Each side offers every environment but the other side's: one compared with itself says nothing. */}
        <Select label="Compare" value={leftName} onChange={(event) => setLeftName(event.currentTarget.value)}>
          {environments.map((environment) => (
            <option key={environment.id} disabled={environment.name === rightName}>
              {environment.name}
            </option>
          ))}
        </Select>
        <Select label="with" value={rightName} onChange={(event) => setRightName(event.currentTarget.value)}>
          {environments.map((environment) => (
            <option key={environment.id} disabled={environment.name === leftName}>
              {environment.name}
            </option>
          ))}
        </Select>
        <label class="check">
          <input
            type="checkbox"
            checked={differencesOnly}
            onChange={(event) => setDifferencesOnly(event.currentTarget.checked)}
          />
          Only keys missing on one side
        </label>
      </div>
      <p class="hint">Keys only. Revealing a row reads both values, which the audit log records.</p>
      <Alert error={lists.error} />
      {lists.data === undefined ? (
        lists.loading ? (
          <Loading what="both environments" />
        ) : null
      ) : shown.length === 0 ? (
        <p class="muted">{rows.length === 0 ? "Neither environment has secrets." : "Both have the same keys."}</p>
      ) : (
        // One block per key on a phone: side by side, two revealed values left the key scrolled out of view.
        <Table
          caption={`Keys of ${leftName} and ${rightName}`}
          columns={["Key", leftName, rightName, "Comparison"]}
          actions
          stacked
        >
          {shown.map((row) => (
            <CompareRow
              key={`${leftName}\n${rightName}\n${row.key}`}
              row={row}
              slug={project.slug}
              names={[leftName, rightName]}
            />
          ))}
        </Table>
      )}
    </>
  )
}

export const CompareEnvironments = ({ params }: { readonly params: Params }) => (
  <ProjectFrame slug={params.slug!}>{(data) => <Compare data={data} />}</ProjectFrame>
)
