/**
 * Compare two environments (issue 12 §5): which keys each has, keys only by default; a row's values are read
 * (two audited reads) only when the person reveals them, and then said to be the same or different.
 *
 * A person who may write closes the gaps from here (`../copyAcross.ts`): a key only one side has is copied to the
 * other, one at a time or all of one side's at once (never over a key the other side has), and a value revealed as
 * different is copied across over the other side's version as shown.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks"
import { currentVersionOf, listSecrets, readSecret } from "../../api/secrets.js"
import { ActionButton, Alert, Loading, Select } from "../../ui/components.js"
import { HiddenCharactersNote } from "../../ui/hiddenCharacters.js"
import { type Params, useQueryState } from "../../ui/router.js"
import { Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { type CopyOutcome, copySecret, copySecrets, type SecretCopy } from "../copyAcross.js"
import { buildRows, type GridRow } from "../grid.js"
import { NotCopied } from "../notCopied.js"
import { type ProjectData, ProjectFrame } from "../projectFrame.js"

type Values = readonly [string | undefined, string | undefined]

/**
 * The copies a row offers: a key one side lacks goes to it as a new key; a value revealed as different goes either
 * way, over the version the other side showed. A value not revealed is not offered over another: the person has
 * not seen what it would replace.
 */
const copiesOf = (row: GridRow, names: readonly [string, string], values: Values | undefined) => {
  const [left, right] = row.cells
  const copy = (from: 0 | 1): SecretCopy => {
    const to = from === 0 ? 1 : 0
    return {
      key: row.key,
      from: names[from],
      to: names[to],
      expectedVersion: row.cells[to]?.version ?? 0,
      value: values?.[from],
    }
  }
  if (left === undefined) return right === undefined ? [] : [copy(1)]
  if (right === undefined) return [copy(0)]
  return values === undefined || values[0] === values[1] ? [] : [copy(0), copy(1)]
}

const badgeOf = (cell: GridRow["cells"][number]) =>
  cell === undefined ? "missing" : cell.empty === true ? "empty" : "present"

const CompareRow = ({
  row,
  slug,
  names,
  canWrite,
  onCopied,
}: {
  readonly row: GridRow
  readonly slug: string
  readonly names: readonly [string, string]
  readonly canWrite: boolean
  readonly onCopied: () => Promise<void>
}) => {
  const [left, right] = row.cells
  // Revealed values hold only for the versions they were read at: once a reload finds either side moved (a copy,
  // a refusal, another person's change), the row hides them, so nothing is shown or copied over a value unseen.
  const versions = `${left?.version ?? 0},${right?.version ?? 0}`
  const [revealed, setRevealed] = useState<{ readonly values: Values; readonly versions: string }>()
  const values = revealed?.versions === versions ? revealed.values : undefined
  const setValues = (shown: Values | undefined) =>
    setRevealed(shown === undefined ? undefined : { values: shown, versions })
  const reveal = useAction(async () => {
    const read = (name: string, present: boolean) =>
      present ? readSecret(slug, name, row.key).then((secret) => secret.value) : undefined
    setValues([await read(names[0], left !== undefined), await read(names[1], right !== undefined)])
  })
  // A copy, or its refusal over a key created meanwhile, takes away the button it was pressed on once the lists
  // reload (the key is on both sides now). Where that button held the keyboard focus, the focus goes to the row's
  // Reveal, not to the main area, where the page's rescue (`../../ui/focusRescue.ts`) would send it and Tab would
  // start again from the top. `pressed` names the side copied to until that button is gone.
  const revealButton = useRef<HTMLButtonElement>(null)
  const pressed = useRef<string>()
  // Busy until the lists are back: a Copy still offered after its copy was said done, pressed again, was refused as
  // a key that exists already.
  const copy = useAction(async (copying: SecretCopy, heldFocus: boolean) => {
    const reload = () => {
      if (heldFocus) pressed.current = copying.to
      return onCopied()
    }
    await copySecret(slug, copying).catch(async (error: unknown) => {
      // Refused because the other side changed meanwhile: the row shows what is there now, beside the reason.
      if (currentVersionOf(error) !== undefined) await reload()
      throw error
    })
    await reload()
    toast(`Copied ${copying.key} to ${copying.to}`)
  })
  const copies = canWrite ? copiesOf(row, names, values) : []
  useLayoutEffect(() => {
    if (pressed.current === undefined || copies.some((copying) => copying.to === pressed.current)) return
    pressed.current = undefined
    // Unless the person has moved on meanwhile.
    if (document.activeElement === null || document.activeElement === document.body) revealButton.current?.focus()
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
            <>
              <pre class="secret-value">{values[index] === "" ? "(empty)" : values[index]}</pre>
              <HiddenCharactersNote value={values[index] ?? ""} />
            </>
          ) : (
            // As the grid says it: a value saved empty is known from the list, so it is "empty", not "present".
            <span class={`badge ${badgeOf(cell)}`}>{badgeOf(cell)}</span>
          )}
        </td>
      ))}
      {/* Kept whole: beside a long key or value, "only in development" broke as "developmen" and "t". */}
      <td data-label="Comparison" class="nowrap">
        {verdict}
      </td>
      <td class="right">
        <div class="actions">
          {/* One button that turns from Reveal into Hide, so that the keyboard focus stays on it. */}
          <ActionButton
            type="button"
            class="button small"
            busy={reveal.busy}
            buttonRef={revealButton}
            aria-label={values === undefined ? `Reveal ${row.key} in ${names[0]} and ${names[1]}` : `Hide ${row.key}`}
            onClick={() => (values === undefined ? reveal.run() : setValues(undefined))}
          >
            {values === undefined ? "Reveal" : "Hide"}
          </ActionButton>
          {copies.map((copying) => (
            <ActionButton
              key={copying.to}
              type="button"
              class="button small"
              busy={copy.busy}
              aria-label={`Copy to ${copying.to}: ${row.key} from ${copying.from}`}
              onClick={(event) => copy.run(copying, document.activeElement === event.currentTarget)}
            >
              Copy to {copying.to}
            </ActionButton>
          ))}
        </div>
        <Alert error={reveal.error ?? copy.error} />
      </td>
    </tr>
  )
}

const plural = (count: number) => (count === 1 ? "1 key" : `${count} keys`)

/**
 * Copies every key one side has and the other lacks, one button per side that has any: what a new environment
 * needs from the one it is set up after. Keys the other side has are never touched; each copy is one key's own
 * read and write, so one refused (created there meanwhile) leaves the rest to land, and is listed.
 */
const CopyMissing = ({
  slug,
  rows,
  names,
  onCopied,
}: {
  readonly slug: string
  readonly rows: ReadonlyArray<GridRow>
  readonly names: readonly [string, string]
  readonly onCopied: () => Promise<void>
}) => {
  const [failed, setFailed] = useState<CopyOutcome["failed"]>([])
  const plans = ([0, 1] as const)
    .map((from) => {
      const to = from === 0 ? 1 : 0
      const keys = rows.filter((row) => row.cells[from] !== undefined && row.cells[to] === undefined)
      return { from: names[from], to: names[to], keys: keys.map((row) => row.key) }
    })
    .filter((plan) => plan.keys.length > 0)
  const copy = useAction(async (plan: (typeof plans)[number]) => {
    const outcome = await copySecrets(
      slug,
      plan.keys.map((key) => ({ key, from: plan.from, to: plan.to, expectedVersion: 0 })),
    )
    // The button stays busy until the lists are back: pressed again meanwhile, it copied nothing and listed every key
    // it had just copied as not copied, since each exists now.
    await onCopied()
    setFailed(outcome.failed)
    if (outcome.copied.length > 0) toast(`Copied ${plural(outcome.copied.length)} to ${plan.to}`)
  })
  if (plans.length === 0 && failed.length === 0) return null
  return (
    <div class="stack">
      <div class="toolbar copy-missing">
        {plans.map((plan) => (
          <ActionButton
            key={plan.to}
            type="button"
            class="button"
            busy={copy.busy}
            onClick={() => {
              setFailed([])
              void copy.run(plan)
            }}
          >
            Copy the {plural(plan.keys.length)} only in {plan.from} to {plan.to}
          </ActionButton>
        ))}
      </div>
      <Alert error={copy.error} />
      <NotCopied failed={failed} />
    </div>
  )
}

const Compare = ({ data }: { readonly data: ProjectData }) => {
  const { project, environments } = data
  // The pair is in the address (`?compare=staging&with=production`), so a comparison can be linked and survives a
  // reload; a name that is no environment (deleted since), or the other side's, falls back to the first ones.
  const names = environments.map((environment) => environment.name)
  const [leftAsked, setLeftName] = useQueryState("compare")
  const [rightAsked, setRightName] = useQueryState("with")
  const leftName = leftAsked !== undefined && names.includes(leftAsked) ? leftAsked : (names[0] ?? "")
  const rightName =
    rightAsked !== undefined && names.includes(rightAsked) && rightAsked !== leftName
      ? rightAsked
      : (names.find((name) => name !== leftName) ?? names[0] ?? "")
  const [differencesOnly, setDifferencesOnly] = useState(false)
  const loaded = useAsync(
    () =>
      Promise.all([listSecrets(project.slug, leftName), listSecrets(project.slug, rightName)]).then((answers) => ({
        pair: `${leftName}\n${rightName}`,
        answers,
      })),
    [project.slug, leftName, rightName],
  )
  // The lists of the pair chosen now, or none while they load: the last pair's rows, under the new pair's names,
  // would offer copies of keys the new pair does not have.
  const current = loaded.data?.pair === `${leftName}\n${rightName}` ? loaded.data.answers : undefined
  const lists = { ...loaded, data: current }
  const rows = useMemo(() => buildRows((current ?? []).map((answer) => answer.secrets)), [current])
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
      <p class="hint">
        Keys only. Revealing a row reads both values{data.canWrite ? ", and copying a key reads its value" : ""}, which
        the audit log records.
      </p>
      <Alert error={lists.error} />
      {data.canWrite && lists.data !== undefined ? (
        <CopyMissing
          key={`${leftName}\n${rightName}`}
          slug={project.slug}
          rows={rows}
          names={[leftName, rightName]}
          onCopied={lists.reload}
        />
      ) : null}
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
              canWrite={data.canWrite}
              onCopied={lists.reload}
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
