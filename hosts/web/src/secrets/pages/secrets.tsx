/**
 * A project's secrets as a grid (issue 12 §3): one row per key, one column per environment, each cell saying
 * present, missing or empty (the list says which values are empty, without reading any); a
 * filter by key and by "missing in <environment>". A key opens its detail, where values are revealed (an audited
 * read, only on request), copied, added, edited and deleted; the import dialog (§4) is here too. Read members see
 * no write controls.
 */
import { useMemo, useRef, useState } from "preact/hooks"
import { type EnvironmentView, listSecrets, type SecretListItem } from "../../api/secrets.js"
import { Alert, Loading } from "../../ui/components.js"
import { memo } from "../../ui/memo.js"
import { type Params, useQueryState } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import {
  buildRows,
  filterRows,
  type GridRow,
  type Revealed,
  type RevealedValue,
  revealedKey,
  type Writes,
  withWrites,
} from "../grid.js"
import { type ProjectData, ProjectFrame } from "../projectFrame.js"
import { AddSecretDialog, SecretDialog } from "../secretDialogs.js"
import { ImportDialog } from "../secretsImport.js"

const Cell = ({ present, empty }: { readonly present: boolean; readonly empty: boolean }) =>
  !present ? (
    <span class="badge missing">missing</span>
  ) : empty ? (
    <span class="badge empty">empty</span>
  ) : (
    <span class="badge present">present</span>
  )

const Row = memo(
  ({
    row,
    environments,
    onOpen,
  }: {
    readonly row: GridRow
    readonly environments: ReadonlyArray<EnvironmentView>
    readonly onOpen: (key: string) => void
  }) => (
    <tr>
      <th scope="row">
        <button type="button" class="linklike mono" onClick={() => onOpen(row.key)}>
          {row.key}
        </button>
      </th>
      {row.cells.map((cell, index) => (
        <td key={environments[index]!.id} data-label={environments[index]!.name}>
          <Cell present={cell !== undefined} empty={cell?.empty === true} />
        </td>
      ))}
    </tr>
  ),
)

const Grid = ({ data }: { readonly data: ProjectData }) => {
  const { project, environments, canWrite } = data
  // Each load is numbered, so that a save or deletion made here is shown until a list loaded after it comes back.
  const loadsStarted = useRef(0)
  // The environments the lists were read for: the project read again (after a change refused as not allowed) may
  // have fewer or others, and lists read for the old ones are not drawn under the new columns (a key shown under
  // another environment's name, and cells past the last column, which broke the page).
  const columns = environments.map((environment) => environment.id).join("\n")
  const loaded = useAsync(() => {
    const load = ++loadsStarted.current
    return Promise.all(environments.map((environment) => listSecrets(project.slug, environment.name))).then(
      (answers) => ({ answers, load, columns }),
    )
  }, [project.slug, environments])
  const lists = { ...loaded, data: loaded.data?.columns === columns ? loaded.data : undefined }
  const [writes, setWrites] = useState<Writes>(new Map())
  // The key filter and the environment shown missing are in the address (`?key=DB&missing=staging`), so a reload
  // or a link keeps them.
  const [keyFilter, setFilter] = useQueryState("key")
  const filter = keyFilter ?? ""
  const [missingName, setMissingName] = useQueryState("missing")
  const found = environments.findIndex((environment) => environment.name === missingName)
  const missingIn = found === -1 ? undefined : found
  const setMissingIn = (index: number | undefined) =>
    setMissingName(index === undefined ? undefined : environments[index]?.name)
  const [open, setOpen] = useState<string | undefined>()
  const [adding, setAdding] = useState(false)
  const [importing, setImporting] = useState(false)
  const [revealed, setRevealed] = useState<Revealed>(new Map())
  const rows = useMemo(
    () =>
      lists.data === undefined
        ? []
        : buildRows(
            withWrites(
              lists.data.answers.map((answer) => answer.secrets),
              environments.map((environment) => environment.name),
              writes,
              lists.data.load,
            ),
          ),
    [lists.data, environments, writes],
  )
  const shown = useMemo(() => filterRows(rows, filter, missingIn), [rows, filter, missingIn])
  const reveal = (environment: string, key: string, value: RevealedValue | undefined) =>
    setRevealed((previous) => {
      const next = new Map(previous)
      if (value === undefined) next.delete(revealedKey(environment, key))
      else next.set(revealedKey(environment, key), { ...value, before: loadsStarted.current })
      return next
    })
  const written = (environment: string, key: string, item: SecretListItem | undefined) => {
    setWrites((previous) =>
      new Map(previous).set(revealedKey(environment, key), { environment, key, item, before: loadsStarted.current }),
    )
    void lists.reload()
  }
  // A key deleted from every environment while its dialog is open (there or elsewhere) keeps its dialog, showing it
  // missing everywhere: the person sees what happened, and may add it back.
  const openRow = useMemo(
    () =>
      open === undefined
        ? undefined
        : (rows.find((row) => row.key === open) ?? { key: open, cells: environments.map(() => undefined) }),
    [rows, open, environments],
  )

  if (environments.length === 0) {
    return <p class="notice">This project has no environments. Add one on the Environments tab.</p>
  }
  return (
    <>
      <div class="toolbar">
        <div class="field grow">
          <label for="secret-filter">Filter by key</label>
          <input
            id="secret-filter"
            type="search"
            value={filter}
            placeholder="e.g. DATABASE"
            onInput={(event) => setFilter(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="secret-missing">Show</label>
          <select
            id="secret-missing"
            value={missingIn === undefined ? "" : String(missingIn)}
            onChange={(event) => {
              const value = event.currentTarget.value
              setMissingIn(value === "" ? undefined : Number(value))
            }}
          >
            <option value="">All keys</option>
            {environments.map((environment, index) => (
              <option key={environment.id} value={String(index)}>
                Missing in {environment.name}
              </option>
            ))}
          </select>
        </div>
        {canWrite ? (
          <div class="row">
            <button type="button" class="button primary" onClick={() => setAdding(true)}>
              Add secret
            </button>
            <button type="button" class="button" onClick={() => setImporting(true)}>
              Import…
            </button>
          </div>
        ) : (
          <p class="hint">You can read this project; only owners and write members change secrets.</p>
        )}
      </div>
      <Alert error={lists.error} />
      {lists.data === undefined ? (
        lists.loading ? (
          <Loading what="secrets" />
        ) : null
      ) : rows.length === 0 ? (
        <p class="muted">No secrets yet.{canWrite ? " Add one, or import a .env or JSON file." : ""}</p>
      ) : (
        <>
          <p class="hint" aria-live="polite">
            {shown.length === rows.length
              ? `${rows.length} ${rows.length === 1 ? "key" : "keys"}`
              : `${shown.length} of ${rows.length} keys`}
          </p>
          {shown.length === 0 ? (
            // A header row with nothing under it read as a grid still loading, or as a project emptied.
            <p class="muted">
              {filter.trim() === "" && missingIn !== undefined
                ? `Every key has a value in ${environments[missingIn]?.name}.`
                : `No key matches “${filter.trim()}”${missingIn === undefined ? "" : ` among those missing in ${environments[missingIn]?.name}`}.`}{" "}
              <button
                type="button"
                class="linklike"
                onClick={() => {
                  setFilter("")
                  setMissingIn(undefined)
                  document.getElementById("secret-filter")?.focus()
                }}
              >
                Show every key
              </button>
            </p>
          ) : (
            <div class="table-wrap grid-wrap">
              <table class="grid stacked" aria-rowcount={shown.length + 1}>
                <caption class="visually-hidden">Secrets of {project.name} by environment</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    {environments.map((environment) => (
                      <th scope="col" key={environment.id}>
                        {environment.name}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {shown.map((row) => (
                    <Row key={row.key} row={row} environments={environments} onOpen={setOpen} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      {openRow === undefined ? null : (
        <SecretDialog
          project={project}
          environments={environments}
          row={openRow}
          canWrite={canWrite}
          revealed={revealed}
          load={lists.data?.load ?? 0}
          onReveal={reveal}
          onChanged={() => void lists.reload()}
          onWritten={written}
          onClose={() => setOpen(undefined)}
        />
      )}
      {adding ? (
        <AddSecretDialog
          project={project}
          environments={environments}
          existing={(environment, key) => {
            const index = environments.findIndex((item) => item.name === environment)
            return rows.find((row) => row.key === key)?.cells[index]
          }}
          onSaved={(environment, item) => {
            // What was revealed of the key there is its value no longer.
            reveal(environment, item.key, undefined)
            // Shown in the grid at once: the toast said it was added while the grid, until its lists came back,
            // did not have it.
            written(environment, item.key, item)
          }}
          onClose={() => setAdding(false)}
        />
      ) : null}
      {importing ? (
        <ImportDialog
          project={project}
          environments={environments}
          onImported={() => {
            // Every value is hidden again, since the import may have replaced it.
            setRevealed(new Map())
            return lists.reload()
          }}
          onClose={() => setImporting(false)}
        />
      ) : null}
    </>
  )
}

export const ProjectSecrets = ({ params }: { readonly params: Params }) => (
  <ProjectFrame slug={params.slug!}>{(data) => <Grid data={data} />}</ProjectFrame>
)
