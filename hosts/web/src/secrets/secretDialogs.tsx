/**
 * The dialogs of the secrets grid: one key across every environment (reveal, copy, edit, delete, history), and
 * adding a secret. Each action's refusal is shown beside the action.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "../api/client.js"
import {
  currentVersionOf,
  deleteSecret,
  type EnvironmentView,
  type ProjectView,
  readSecret,
  type SecretListItem,
  setSecret,
} from "../api/secrets.js"
import { ActionButton, Alert, CopyButton, Dialog, Field, formatTime, Select, TextArea } from "../ui/components.js"
import { useFieldRefusal } from "../ui/fieldRefusal.js"
import { HiddenCharactersNote } from "../ui/hiddenCharacters.js"
import { Link } from "../ui/router.js"
import { SecretValue } from "../ui/secretValue.js"
import { toast } from "../ui/toast.js"
import { useAction } from "../ui/useAction.js"
import { type GridRow, type Revealed, type RevealedValue, revealedValue } from "./grid.js"
import { nameProblem, SECRET_KEY_MAX_LENGTH } from "./names.js"
import { auditPath } from "./pages/auditFilters.js"
import { projectPath } from "./projectFrame.js"
import { VALUE_FIELD } from "./valueField.js"

export const historyPath = (slug: string, environment: string, key: string) =>
  projectPath(slug, `/environments/${encodeURIComponent(environment)}/secrets/${encodeURIComponent(key)}/history`)

/** One environment's value of a key: present (reveal, copy, edit, delete, history) or missing (add). */
const EnvironmentValue = ({
  project,
  environment,
  secretKey,
  item,
  canWrite,
  value,
  onReveal,
  onChanged,
  onWritten,
  onUnsaved,
}: {
  readonly project: ProjectView
  readonly environment: EnvironmentView
  readonly secretKey: string
  readonly item: SecretListItem | undefined
  readonly canWrite: boolean
  readonly value: string | undefined
  readonly onReveal: (value: RevealedValue | undefined) => void
  readonly onChanged: () => void
  /** A save (the key as it is now) or a deletion (`undefined`) made here: shown at once, and the list reloaded. */
  readonly onWritten: (item: SecretListItem | undefined) => void
  /** Whether an edit here holds a value that is not saved, for the dialog to ask before it closes. */
  readonly onUnsaved: (unsaved: boolean) => void
}) => {
  const [mode, setMode] = useState<"view" | "edit" | "delete">("view")
  // Back from editing or deleting, the focus goes to the row's Edit (or Add value) button, not to the page's body:
  // the form that held it is gone.
  const editButton = useRef<HTMLButtonElement>(null)
  const [refocus, setRefocus] = useState(false)
  const toView = () => {
    setMode("view")
    setRefocus(true)
  }
  const [draft, setDraft] = useState("")
  const [startedWith, setStartedWith] = useState("")
  // The version the draft started from (0: none, an add), and the version a save found instead (its 409; 0 when
  // the key was deleted meanwhile), which the next save then expects: replacing it is a choice made knowingly.
  const [startedFrom, setStartedFrom] = useState(0)
  const [changed, setChanged] = useState<number>()
  // Likewise for a deletion: the version it found instead of the one listed, which "Delete anyway" then expects.
  const [changedBeforeDelete, setChangedBeforeDelete] = useState<number>()
  const name = environment.name
  const {
    busy,
    error,
    run: act,
  } = useAction(async (work: () => Promise<void>) => {
    try {
      await work()
    } catch (cause) {
      // Gone since the grid was drawn (deleted elsewhere): the grid is brought up to date, and the refusal says so
      // in words that fit the row the person is looking at.
      if (!(cause instanceof ApiError && cause.status === 404)) throw cause
      onChanged()
      throw cause.message === "Secret not found"
        ? new Error(`${secretKey} is no longer in ${name}: it was deleted since the list was loaded.`)
        : cause
    }
  })
  useEffect(() => {
    if (mode !== "view" || !refocus) return
    setRefocus(false)
    editButton.current?.focus()
  }, [mode, refocus])
  // Asked to delete, the focus goes to the question's safe answer: the Delete button that held it is gone.
  const keepButton = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (mode === "delete") keepButton.current?.focus()
  }, [mode])
  const unsaved = mode === "edit" && draft !== startedWith
  // Told before the next event is handled (an effect would wait for a frame): an Escape pressed right after typing
  // must find the dialog already asking first.
  useLayoutEffect(() => onUnsaved(unsaved), [unsaved])
  const edit = (current: RevealedValue | undefined) => {
    setDraft(current?.value ?? "")
    setStartedWith(current?.value ?? "")
    setStartedFrom(current?.version ?? 0)
    setChanged(undefined)
    setMode("edit")
  }
  return (
    <section class="env-value" aria-label={`${secretKey} in ${name}`}>
      <header class="env-value-head">
        <h3>{name}</h3>
        {item === undefined ? (
          <span class="badge missing">missing</span>
        ) : (
          <span class="muted">
            version {item.version}, updated {formatTime(item.updatedAt)}
          </span>
        )}
      </header>
      {value === undefined ? null : (
        <div class="stack">
          {value === "" ? (
            <p class="muted">(empty value)</p>
          ) : (
            <>
              <SecretValue label={`Value of ${secretKey} in ${name}`} value={value} />
              <HiddenCharactersNote value={value} />
            </>
          )}
        </div>
      )}
      {mode === "edit" ? (
        <form
          class="stack"
          onSubmit={(event) => {
            event.preventDefault()
            void act(async () => {
              // Saved only on the version the draft started from, so that a value saved by someone else since is
              // not replaced unseen; told which version is there now, "Save anyway" expects that one instead.
              const answer = await setSecret(project.slug, name, secretKey, draft, changed ?? startedFrom).catch(
                (cause: unknown) => {
                  const now = currentVersionOf(cause)
                  if (now === undefined) throw cause
                  setChanged(now)
                  onChanged()
                },
              )
              if (answer === undefined) return
              toast(`Saved ${secretKey} in ${name} (version ${answer.version})`)
              onReveal({ value: draft, version: answer.version, id: item?.id })
              toView()
              const now = new Date().toISOString()
              onWritten({
                id: item?.id ?? "",
                key: secretKey,
                version: answer.version,
                empty: draft === "",
                createdAt: item?.createdAt ?? now,
                updatedAt: now,
              })
            })
          }}
        >
          <TextArea
            label={`New value of ${secretKey} in ${name}`}
            value={draft}
            rows={4}
            autoFocus
            {...VALUE_FIELD}
            onInput={(event) => setDraft(event.currentTarget.value)}
          />
          {changed === undefined ? null : (
            <p class="alert" role="alert">
              {changed === 0
                ? `${secretKey} was deleted from ${name} since you started editing. Save anyway to add it again.`
                : startedFrom === 0
                  ? `${secretKey} was added to ${name} by someone else since you started (version ${changed}). ` +
                    "Save anyway replaces that value (it stays in the history), or cancel and reveal it."
                  : `${secretKey} in ${name} was saved by someone else since you started editing (now version ` +
                    `${changed}). Save anyway replaces that value (it stays in the history), or cancel and reveal ` +
                    "it again."}
            </p>
          )}
          <div class="actions">
            <button type="button" class="button" onClick={() => toView()}>
              Cancel
            </button>
            <ActionButton type="submit" class="button primary" busy={busy}>
              {changed === undefined ? "Save" : "Save anyway"}
            </ActionButton>
          </div>
        </form>
      ) : mode === "delete" ? (
        <div class="stack">
          <p>
            Delete {secretKey} from {name}? Its history goes with it.
          </p>
          {changedBeforeDelete === undefined ? null : (
            <p class="alert" role="alert">
              {`${secretKey} in ${name} was saved by someone else since the list was loaded (now version ` +
                `${changedBeforeDelete}), and nothing was deleted. Delete anyway deletes that value too, or cancel ` +
                "and reveal it first."}
            </p>
          )}
          <div class="actions">
            <button type="button" class="button" ref={keepButton} onClick={() => toView()}>
              Cancel
            </button>
            <ActionButton
              type="button"
              class="button danger"
              busy={busy}
              onClick={() =>
                void act(async () => {
                  // Deleted only at the version listed (or the one a refusal named since), so that a value saved
                  // by someone else meanwhile is not deleted unseen.
                  const deleted = await deleteSecret(
                    project.slug,
                    name,
                    secretKey,
                    changedBeforeDelete ?? item?.version,
                  ).then(
                    () => true,
                    (cause: unknown) => {
                      const now = currentVersionOf(cause)
                      if (now === undefined) throw cause
                      setChangedBeforeDelete(now)
                      onChanged()
                      return false
                    },
                  )
                  if (!deleted) return
                  toast(`Deleted ${secretKey} from ${name}`)
                  onReveal(undefined)
                  toView()
                  onWritten(undefined)
                })
              }
            >
              {changedBeforeDelete === undefined ? `Delete from ${name}` : "Delete anyway"}
            </ActionButton>
          </div>
        </div>
      ) : (
        <div class="row">
          {/* An empty value is shown as the list has it: there is nothing to reveal, hide or copy. */}
          {item === undefined || item.empty ? null : (
            // One button that turns from Reveal into Hide, so that the keyboard focus stays on it.
            <ActionButton
              type="button"
              class="button"
              busy={busy}
              aria-label={`${value === undefined ? "Reveal" : "Hide"} ${secretKey} in ${name}`}
              onClick={() => {
                if (value !== undefined) onReveal(undefined)
                else
                  void act(async () => {
                    const current = await readSecret(project.slug, name, secretKey)
                    onReveal(current)
                    // A value is shown for the version listed: a newer one read here brings the list up to date.
                    if (current.version !== item.version) onChanged()
                  })
              }}
            >
              {value === undefined ? "Reveal" : "Hide"}
            </ActionButton>
          )}
          {value === undefined || value === "" ? null : (
            <CopyButton value={value} label={`Copy ${secretKey} in ${name}`} />
          )}
          {canWrite ? (
            <ActionButton
              type="button"
              class="button"
              buttonRef={editButton}
              aria-label={`${item === undefined ? "Add" : "Edit"} ${secretKey} in ${name}`}
              busy={busy}
              onClick={() => {
                // The draft starts from the current value, read (and audited) afresh even when one is shown: an
                // empty draft would replace the value with nothing, and a value revealed earlier may be outdated.
                if (item === undefined) edit(undefined)
                else
                  void act(async () => {
                    const current = await readSecret(project.slug, name, secretKey)
                    onReveal(current)
                    if (current.version !== item.version) onChanged()
                    edit(current)
                  })
              }}
            >
              {item === undefined ? "Add value" : "Edit"}
            </ActionButton>
          ) : null}
          {canWrite && item !== undefined ? (
            <button
              type="button"
              class="button danger ghost"
              aria-label={`Delete ${secretKey} from ${name}`}
              onClick={() => {
                setChangedBeforeDelete(undefined)
                setMode("delete")
              }}
            >
              Delete
            </button>
          ) : null}
          {item === undefined ? null : (
            <>
              <Link class="button ghost" href={historyPath(project.slug, name, secretKey)}>
                History
                <span class="visually-hidden">
                  {" "}
                  of {secretKey} in {name}
                </span>
              </Link>
              {/* Who read or changed it: the audit log filtered by the key and this environment. */}
              <Link class="button ghost" href={auditPath(project.slug, { key: secretKey, environment: name })}>
                Audit trail
                <span class="visually-hidden">
                  {" "}
                  of {secretKey} in {name}
                </span>
              </Link>
            </>
          )}
        </div>
      )}
      <Alert error={error} />
    </section>
  )
}

/** "`A` in production is", "`A` in production and staging are": what an edit left unsaved names. */
const unsavedIn = (key: string, environments: ReadonlyArray<string>) =>
  environments.length === 1
    ? `The new value of ${key} in ${environments[0]} is not saved.`
    : `The new values of ${key} in ${environments.slice(0, -1).join(", ")} and ${environments.at(-1)} are not saved.`

export const SecretDialog = ({
  project,
  environments,
  row,
  canWrite,
  revealed,
  load,
  onReveal,
  onChanged,
  onWritten,
  onClose,
}: {
  readonly project: ProjectView
  readonly environments: ReadonlyArray<EnvironmentView>
  readonly row: GridRow
  readonly canWrite: boolean
  readonly revealed: Revealed
  /** The number of the list load `row` is from (see `revealedValue`). */
  readonly load: number
  readonly onReveal: (environment: string, key: string, value: RevealedValue | undefined) => void
  readonly onChanged: () => void
  readonly onWritten: (environment: string, key: string, item: SecretListItem | undefined) => void
  readonly onClose: () => void
}) => {
  const [unsaved, setUnsaved] = useState<ReadonlySet<string>>(new Set())
  const markUnsaved = (environment: string, now: boolean) =>
    setUnsaved((before) => {
      if (before.has(environment) === now) return before
      const after = new Set(before)
      if (now) after.add(environment)
      else after.delete(environment)
      return after
    })
  const editing = environments.map((environment) => environment.name).filter((name) => unsaved.has(name))
  const guard =
    editing.length === 0 ? undefined : { message: unsavedIn(row.key, editing), discard: "Discard and close" }
  return (
    <Dialog title={row.key} onClose={onClose} wide guard={guard}>
      <p class="hint">Revealing a value is recorded in the audit log.</p>
      <div class="stack">
        {environments.map((environment, index) => (
          <EnvironmentValue
            key={environment.id}
            project={project}
            environment={environment}
            secretKey={row.key}
            item={row.cells[index]}
            canWrite={canWrite}
            value={revealedValue(revealed, environment.name, row.key, row.cells[index], load)}
            onReveal={(value) => onReveal(environment.name, row.key, value)}
            onChanged={onChanged}
            onWritten={(item) => onWritten(environment.name, row.key, item)}
            onUnsaved={(now) => markUnsaved(environment.name, now)}
          />
        ))}
      </div>
    </Dialog>
  )
}

export const AddSecretDialog = ({
  project,
  environments,
  existing,
  onSaved,
  onClose,
}: {
  readonly project: ProjectView
  readonly environments: ReadonlyArray<EnvironmentView>
  /** What the grid knows of `key` in `environment`: a key already there is replaced, and the dialog says so. */
  readonly existing: (environment: string, key: string) => SecretListItem | undefined
  /** The key as it is now in `environment`, for the grid to show at once. */
  readonly onSaved: (environment: string, item: SecretListItem) => void
  readonly onClose: () => void
}) => {
  const [key, setKey] = useState("")
  const [value, setValue] = useState("")
  const [environment, setEnvironment] = useState(environments[0]?.name ?? "")
  const problem = key === "" ? undefined : nameProblem("secretKey", key)
  // The version a save found `key` at in `environment` (its 409: added, changed or deleted since the grid was
  // drawn), which wins over the grid's: said like a key the grid knew of, and expected by the next save.
  const [found, setFound] = useState<{ readonly environment: string; readonly key: string; readonly version: number }>()
  const replaced =
    found?.environment === environment && found.key === key
      ? found.version === 0
        ? undefined
        : found
      : existing(environment, key)
  // The service's refusal of the key (400): the key is checked as it is typed with the service's own rules, but a
  // service that has since grown a rule the page does not know says so only here. The environment is one of the
  // list's and the value's only limit is its size (413), so a 400 is the key's.
  const keyRefusal = useFieldRefusal()
  const { busy, error, setError, submit } = useAction(async () => {
    // A new key is saved only as one (0), a key the person was told of only on the version they were told: one
    // added or changed by someone else meanwhile is said first, and replaced on the next save.
    const answer = await setSecret(project.slug, environment, key, value, replaced?.version ?? 0).catch(
      (cause: unknown) => {
        if (cause instanceof ApiError && cause.status === 400) throw keyRefusal.refuse(cause)
        const now = currentVersionOf(cause)
        if (now === undefined) throw cause
        setFound({ environment, key, version: now })
      },
    )
    if (answer === undefined) return
    toast(
      answer.action === "created"
        ? `Added ${key} to ${environment}`
        : `Updated ${key} in ${environment} (version ${answer.version})`,
    )
    const now = new Date().toISOString()
    const before = existing(environment, key)
    onSaved(environment, {
      id: before?.id ?? "",
      key,
      version: answer.version,
      empty: value === "",
      createdAt: answer.action === "created" ? now : (before?.createdAt ?? now),
      updatedAt: now,
    })
    onClose()
  })
  return (
    <Dialog
      title="Add a secret"
      onClose={onClose}
      guard={
        key === "" && value === ""
          ? undefined
          : { message: "This secret is not saved yet.", discard: "Discard and close" }
      }
    >
      <form class="stack" onSubmit={submit}>
        {/* Where the person starts: the dialog opens on the key, not on its close button. A refusal is of the key or
            environment it was given, and goes once either changes. */}
        <Field
          label="Key"
          name="key"
          required
          autoFocus
          autoComplete="off"
          spellcheck={false}
          value={key}
          aria-invalid={problem !== undefined || keyRefusal.shown(error)}
          errorId={keyRefusal.errorId(error)}
          hint={problem ?? `Letters, digits, _, - and . (at most ${SECRET_KEY_MAX_LENGTH}).`}
          onInput={(event) => {
            setKey(event.currentTarget.value)
            setError(undefined)
          }}
        />
        <Select
          label="Environment"
          value={environment}
          onChange={(event) => {
            setEnvironment(event.currentTarget.value)
            setError(undefined)
          }}
        >
          {environments.map((item) => (
            <option key={item.id} value={item.name}>
              {item.name}
            </option>
          ))}
        </Select>
        <TextArea
          label="Value"
          value={value}
          rows={4}
          {...VALUE_FIELD}
          onInput={(event) => setValue(event.currentTarget.value)}
        />
        {replaced !== undefined ? (
          <p class="notice" role="status">
            {key} already has a value in {environment} (version {replaced.version}). Saving replaces it; the value it
            has now stays in its history.
          </p>
        ) : found?.environment === environment && found.key === key && existing(environment, key) !== undefined ? (
          <p class="notice" role="status">
            {key} was deleted from {environment} since the list was loaded. Saving adds it again.
          </p>
        ) : null}
        <Alert error={error} id={keyRefusal.alertId} />
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <ActionButton type="submit" class="button primary" busy={busy} blocked={problem !== undefined}>
            {replaced === undefined ? "Save secret" : "Replace value"}
          </ActionButton>
        </div>
      </form>
    </Dialog>
  )
}
