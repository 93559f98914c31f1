/**
 * Bulk paste and import (issue 12 §4): paste, choose or drop a `.env` or JSON file; the preview lists new,
 * changed and unchanged keys, duplicates, JSON numbers and true/false turned into text, and what cannot be
 * imported, before anything is saved; saving shows its progress.
 *
 * The service has no bulk write, so an import is one `POST` per new or changed key, a few at a time. Telling
 * changed from unchanged needs the current values: the preview reads them once through the JSON export, which the
 * audit log records as such, and their versions through the list just before it. Each write sends the version
 * its key had in the preview (0 for a new key), so a key someone changes after the preview is refused (409)
 * rather than overwritten unseen; a change landing between the two reads makes the write fail safe the same way.
 * Such a refusal does not stop the others: the import goes on and then names the keys it left, offering a fresh
 * preview. A 429 is waited out (its `Retry-After`) and the key retried; any other refusal stops the import where
 * it was and says how far it got, so nothing is half-known.
 */
import { Fragment } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "../api/client.js"
import {
  currentVersionOf,
  type EnvironmentView,
  exportValues,
  listSecrets,
  type ProjectView,
  setSecret,
} from "../api/secrets.js"
import { ActionButton, Alert, Dialog, Select, TextArea } from "../ui/components.js"
import { toast } from "../ui/toast.js"
import { type Change, classify, type Parsed, type ParsedEntry, parseSecretsFile } from "./envFile.js"
import { VALUE_FIELD } from "./valueField.js"

type Classified = ReadonlyArray<ParsedEntry & { readonly change: Change }>

/** What the preview compared the file with: each key's version then, so that a write lands only on it. */
interface Preview {
  readonly entries: Classified
  /** Keys absent from the environment have none: they are written as new (expected version 0). */
  readonly versions: ReadonlyMap<string, number>
}

/** A key whose write found it changed since the preview (409), and the version it is at now (0: deleted). */
interface ChangedMeanwhile {
  readonly key: string
  readonly currentVersion: number
}

/** Writes running at once: enough to keep the connection busy, few enough not to crowd other users out. */
const PARALLEL_WRITES = 4

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const CHANGE_LABELS: Readonly<Record<Change, string>> = { new: "new", changed: "changed", unchanged: "unchanged" }

export const ImportDialog = ({
  project,
  environments,
  onImported,
  onClose,
}: {
  readonly project: ProjectView
  readonly environments: ReadonlyArray<EnvironmentView>
  /** Called once the writes have ended, however many were made. */
  /** Reads the grid again. */
  readonly onImported: () => Promise<void>
  readonly onClose: () => void
}) => {
  const [environment, setEnvironment] = useState(environments[0]?.name ?? "")
  const [text, setText] = useState("")
  const [parsed, setParsed] = useState<Parsed>()
  const [preview, setPreview] = useState<Preview>()
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<{ done: number; total: number; waiting?: number }>()
  // Set once an import has run without closing the dialog (keys changed meanwhile, or a refusal): its preview is
  // spent, since the versions it holds are behind what was just written.
  const [changedMeanwhile, setChangedMeanwhile] = useState<ReadonlyArray<ChangedMeanwhile>>()
  // Preview and Back replace the button pressed with the preview or the Preview button, and an import that ends
  // in the dialog replaces its button with the outcome: the focus goes to what took its place (the preview's
  // summary or the outcome, read out), not to the page's body.
  const [moveFocus, setMoveFocus] = useState(false)
  const summary = useRef<HTMLParagraphElement>(null)
  const outcome = useRef<HTMLParagraphElement>(null)
  const previewButton = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!moveFocus) return
    setMoveFocus(false)
    ;(preview === undefined ? previewButton : changedMeanwhile === undefined ? summary : outcome).current?.focus()
  }, [moveFocus, preview, changedMeanwhile])

  const reset = () => {
    setParsed(undefined)
    setPreview(undefined)
    setProgress(undefined)
    setChangedMeanwhile(undefined)
    setError(undefined)
  }
  const readFile = async (file: File | undefined) => {
    if (file === undefined) return
    setText(await file.text())
    reset()
  }

  const makePreview = async () => {
    const result = parseSecretsFile(text)
    if (typeof result === "string") {
      setError(new Error(result))
      return
    }
    setBusy(true)
    try {
      // Versions first: a value changed between the two reads is then newer than its version says, and its write
      // is refused (409) instead of passing on a comparison with a value it never replaces.
      const { secrets } = await listSecrets(project.slug, environment)
      const current = await exportValues(project.slug, environment)
      setParsed(result)
      setPreview({
        entries: classify(result.entries, current),
        versions: new Map(secrets.map((secret) => [secret.key, secret.version])),
      })
      setProgress(undefined)
      setChangedMeanwhile(undefined)
      setError(undefined)
      setMoveFocus(true)
    } catch (cause) {
      setError(cause)
    } finally {
      setBusy(false)
    }
  }

  const runImport = async (toSave: Classified, versions: ReadonlyMap<string, number>) => {
    setBusy(true)
    setError(undefined)
    let done = 0
    let failed: unknown
    const changed: Array<ChangedMeanwhile> = []
    const queue = [...toSave]
    setProgress({ done, total: toSave.length })
    const worker = async () => {
      for (let entry = queue.shift(); entry !== undefined && failed === undefined; entry = queue.shift()) {
        for (;;) {
          try {
            const expected = versions.get(entry.key) ?? 0
            await setSecret(project.slug, environment, entry.key, entry.value, expected)
            done++
            break
          } catch (cause) {
            if (cause instanceof ApiError && cause.status === 429 && failed === undefined) {
              const wait = cause.retryAfter ?? 1
              setProgress({ done, total: toSave.length, waiting: wait })
              await sleep(wait * 1000)
              continue
            }
            const currentVersion = currentVersionOf(cause)
            if (currentVersion !== undefined) {
              changed.push({ key: entry.key, currentVersion })
              break
            }
            failed ??= new Error(`Stopped at ${entry.key} after saving ${done} of ${toSave.length}: ${describe(cause)}`)
            return
          }
        }
        setProgress({ done, total: toSave.length })
      }
    }
    await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, toSave.length) }, worker))
    // The grid is read again before the dialog says it is done and closes: on a slow network it closed onto the
    // grid as it was before the import, whose new rows then came in and pushed the rest down.
    await onImported()
    setBusy(false)
    if (failed === undefined && changed.length === 0) {
      toast(`Imported ${done} ${done === 1 ? "secret" : "secrets"} into ${environment}`)
      onClose()
      return
    }
    setChangedMeanwhile(changed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)))
    setError(failed)
    setMoveFocus(true)
  }

  const entries = preview?.entries ?? []
  const toSave = entries.filter((entry) => entry.change !== "unchanged")
  const count = (change: Change) => entries.filter((entry) => entry.change === change).length
  const converted = entries.filter((entry) => entry.converted !== undefined)
  return (
    <Dialog
      title="Import secrets"
      onClose={onClose}
      wide
      guard={
        text.trim() === "" || progress !== undefined
          ? undefined
          : { message: "What you pasted or chose is not imported yet.", discard: "Discard and close" }
      }
    >
      <div class="stack">
        <Select
          label="Into environment"
          value={environment}
          onChange={(event) => {
            setEnvironment(event.currentTarget.value)
            reset()
          }}
        >
          {environments.map((item) => (
            <option key={item.id} value={item.name}>
              {item.name}
            </option>
          ))}
        </Select>
        <div class="field">
          <label for="import-file">Choose a .env or JSON file</label>
          <input
            id="import-file"
            type="file"
            accept=".env,.json,text/plain,application/json"
            onChange={(event) => void readFile(event.currentTarget.files?.[0])}
          />
        </div>
        <TextArea
          label="Or paste it here (or drop a file on this box)"
          value={text}
          rows={8}
          {...VALUE_FIELD}
          onInput={(event) => {
            setText(event.currentTarget.value)
            reset()
          }}
          onDragOver={(event) => event.preventDefault()}
          onDrop={(event) => {
            event.preventDefault()
            void readFile(event.dataTransfer?.files[0])
          }}
        />
        {preview === undefined ? (
          <p class="hint">
            The preview reads this environment's current values to tell changed keys from unchanged ones; the audit log
            records that as a JSON export. A key someone else changes after the preview is not overwritten.
          </p>
        ) : null}
        {preview === undefined ? (
          <div class="actions">
            <button type="button" class="button" onClick={onClose}>
              Cancel
            </button>
            <ActionButton
              type="button"
              class="button primary"
              buttonRef={previewButton}
              busy={busy}
              blocked={text.trim() === ""}
              onClick={makePreview}
            >
              Preview
            </ActionButton>
          </div>
        ) : null}
        <Alert error={error} />
        {preview === undefined || parsed === undefined ? null : (
          <section class="stack" aria-label="Preview">
            <p aria-live="polite" tabIndex={-1} ref={summary}>
              <strong>{count("new")}</strong> new, <strong>{count("changed")}</strong> changed,{" "}
              <strong>{count("unchanged")}</strong> unchanged
              {parsed.duplicates.length > 0 ? `, ${parsed.duplicates.length} given more than once` : ""}
              {converted.length > 0 ? `, ${converted.length} converted to text` : ""}
              {parsed.invalid.length > 0 ? `, ${parsed.invalid.length} cannot be imported` : ""}.
              {progress === undefined ? " Nothing is saved yet." : ""}
            </p>
            {parsed.duplicates.length > 0 ? (
              <p class="notice">
                Given more than once (the last value is used): <code>{parsed.duplicates.join(", ")}</code>
              </p>
            ) : null}
            {converted.length > 0 ? (
              <p class="notice">
                Numbers and true/false are saved as text, as written in the file:{" "}
                {converted.map((entry, index) => (
                  <Fragment key={entry.key}>
                    {index === 0 ? "" : ", "}
                    <code>{entry.key}</code> ({entry.converted === "number" ? "number" : "true/false"})
                  </Fragment>
                ))}
                .
              </p>
            ) : null}
            {parsed.invalid.length > 0 ? (
              <div class="table-wrap">
                {/* One block per entry on a phone: a narrow Key column beside the reason cut keys into pieces. */}
                <table class="stacked">
                  <caption>Cannot be imported</caption>
                  <thead>
                    <tr>
                      <th scope="col">{parsed.format === "json" ? "Entry" : "Line"}</th>
                      <th scope="col">Key</th>
                      <th scope="col">Why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {parsed.invalid.map((problem) => (
                      <tr key={`${problem.line}:${problem.key}`}>
                        <td data-label={parsed.format === "json" ? "Entry" : "Line"}>{problem.line}</td>
                        <td data-label={problem.key === undefined ? undefined : "Key"} class="mono">
                          {problem.key ?? ""}
                        </td>
                        <td data-label="Why">{problem.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
            {entries.length > 0 ? (
              <div class="table-wrap preview-table">
                <table>
                  <caption>Keys in the file</caption>
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">In {environment}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((entry) => (
                      <tr key={entry.key}>
                        <td class="mono">{entry.key}</td>
                        <td>
                          <span class={`badge ${entry.change}`}>{CHANGE_LABELS[entry.change]}</span>
                          {changedMeanwhile?.some((item) => item.key === entry.key) ? (
                            <>
                              {" "}
                              <span class="badge missing">not saved</span>
                            </>
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
            {progress === undefined ? null : (
              <div class="field">
                <label for="import-progress">
                  Saved {progress.done} of {progress.total}
                  {progress.waiting === undefined ? "" : ` (too many writes: waiting ${progress.waiting} s)`}
                </label>
                <progress id="import-progress" value={progress.done} max={progress.total} />
              </div>
            )}
            {changedMeanwhile === undefined ? null : (
              <p class="notice" aria-live="polite" tabIndex={-1} ref={outcome}>
                {changedMeanwhile.length === 0 ? null : (
                  <>
                    {changedMeanwhile.length === 1 ? "1 key was" : `${changedMeanwhile.length} keys were`} changed by
                    someone else since the preview, so {changedMeanwhile.length === 1 ? "it was" : "they were"} not
                    saved:{" "}
                    {changedMeanwhile.map((item, index) => (
                      <Fragment key={item.key}>
                        {index === 0 ? "" : ", "}
                        <code>{item.key}</code> (
                        {sinceThePreview(preview.versions.get(item.key) ?? 0, item.currentVersion)})
                      </Fragment>
                    ))}
                    .{" "}
                  </>
                )}
                {changedMeanwhile.length === 0
                  ? "Preview again to import the rest, compared with the values saved now."
                  : "Preview again to compare the file with the values saved now, then import what still differs."}
              </p>
            )}
            <div class="actions">
              <ActionButton
                type="button"
                class="button"
                onClick={() => {
                  reset()
                  setMoveFocus(true)
                }}
                busy={busy}
              >
                Back
              </ActionButton>
              {changedMeanwhile === undefined ? (
                <ActionButton
                  type="button"
                  class="button primary"
                  busy={busy}
                  blocked={toSave.length === 0}
                  onClick={() => void runImport(toSave, preview.versions)}
                >
                  {toSave.length === 0
                    ? "Nothing to import"
                    : `Import ${toSave.length} ${toSave.length === 1 ? "secret" : "secrets"}`}
                </ActionButton>
              ) : (
                // The versions this preview holds are behind what the import wrote: only a fresh one can go on.
                <ActionButton type="button" class="button primary" busy={busy} onClick={makePreview}>
                  Preview again
                </ActionButton>
              )}
            </div>
          </section>
        )}
      </div>
    </Dialog>
  )
}

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** What became of a key between the preview (`expected`: its version then, 0 for none) and its write. */
const sinceThePreview = (expected: number, current: number) =>
  current === 0 ? "deleted" : expected === 0 ? `added, version ${current}` : `now version ${current}`
