/**
 * Bulk paste and import (issue 12 §4): paste, choose or drop a `.env` or JSON file; the preview lists new,
 * changed and unchanged keys, duplicates, JSON numbers and true/false turned into text, and what cannot be
 * imported, before anything is saved; saving shows its progress.
 *
 * The service has no bulk write, so an import is one `POST` per new or changed key, a few at a time. A 429 is
 * waited out (its `Retry-After`) and the key retried; any other refusal stops the import where it was and says
 * how far it got, so nothing is half-known. Telling changed from unchanged needs the current values: the
 * preview reads them once through the JSON export, which the audit log records as such.
 */
import { Fragment } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError, get } from "../api/client.js"
import { type EnvironmentView, exportUrl, type ProjectView, setSecret } from "../api/secrets.js"
import { ActionButton, Alert, Dialog, Select, TextArea } from "../ui/components.js"
import { toast } from "../ui/toast.js"
import { type Change, classify, type Parsed, type ParsedEntry, parseSecretsFile } from "./envFile.js"

type Classified = ReadonlyArray<ParsedEntry & { readonly change: Change }>

/** Writes running at once: enough to keep the connection busy, few enough not to crowd other users out. */
const PARALLEL_WRITES = 4

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A value an import saved, and the version the service gave it. */
export interface WrittenEntry {
  readonly key: string
  readonly value: string
  readonly version: number
}

const CHANGE_LABELS: Readonly<Record<Change, string>> = { new: "new", changed: "changed", unchanged: "unchanged" }

export const ImportDialog = ({
  project,
  environments,
  onImported,
  onClose,
}: {
  readonly project: ProjectView
  readonly environments: ReadonlyArray<EnvironmentView>
  /** Called after an import, complete or stopped, with what it wrote: each key's value and its new version. */
  readonly onImported: (environment: string, written: ReadonlyArray<WrittenEntry>) => void
  readonly onClose: () => void
}) => {
  const [environment, setEnvironment] = useState(environments[0]?.name ?? "")
  const [text, setText] = useState("")
  const [parsed, setParsed] = useState<Parsed>()
  const [preview, setPreview] = useState<Classified>()
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<{ done: number; total: number; waiting?: number }>()
  // Preview and Back replace the button pressed with the preview or the Preview button: the focus goes to what
  // took its place (the preview's summary, read out), not to the page's body.
  const [moveFocus, setMoveFocus] = useState(false)
  const summary = useRef<HTMLParagraphElement>(null)
  const previewButton = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!moveFocus) return
    setMoveFocus(false)
    ;(preview === undefined ? previewButton : summary).current?.focus()
  }, [moveFocus, preview])

  const reset = () => {
    setParsed(undefined)
    setPreview(undefined)
    setProgress(undefined)
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
      const current = await get<Record<string, string>>(exportUrl(project.slug, environment, "json"))
      setParsed(result)
      setPreview(classify(result.entries, current))
      setError(undefined)
      setMoveFocus(true)
    } catch (cause) {
      setError(cause)
    } finally {
      setBusy(false)
    }
  }

  const runImport = async (toSave: Classified) => {
    setBusy(true)
    setError(undefined)
    let done = 0
    let failed: unknown
    const written: Array<WrittenEntry> = []
    const queue = [...toSave]
    setProgress({ done, total: toSave.length })
    const worker = async () => {
      for (let entry = queue.shift(); entry !== undefined && failed === undefined; entry = queue.shift()) {
        for (;;) {
          try {
            const { version } = await setSecret(project.slug, environment, entry.key, entry.value)
            written.push({ key: entry.key, value: entry.value, version })
            break
          } catch (cause) {
            if (cause instanceof ApiError && cause.status === 429 && failed === undefined) {
              const wait = cause.retryAfter ?? 1
              setProgress({ done, total: toSave.length, waiting: wait })
              await sleep(wait * 1000)
              continue
            }
            failed ??= new Error(`Stopped at ${entry.key} after saving ${done} of ${toSave.length}: ${describe(cause)}`)
            return
          }
        }
        done++
        setProgress({ done, total: toSave.length })
      }
    }
    await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, toSave.length) }, worker))
    setBusy(false)
    onImported(environment, written)
    if (failed !== undefined) {
      setError(failed)
      return
    }
    toast(`Imported ${done} ${done === 1 ? "secret" : "secrets"} into ${environment}`)
    onClose()
  }

  const toSave = preview?.filter((entry) => entry.change !== "unchanged") ?? []
  const count = (change: Change) => preview?.filter((entry) => entry.change === change).length ?? 0
  const converted = preview?.filter((entry) => entry.converted !== undefined) ?? []
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
          spellcheck={false}
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
            records that as a JSON export.
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
              {parsed.invalid.length > 0 ? `, ${parsed.invalid.length} cannot be imported` : ""}. Nothing is saved yet.
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
            {preview.length > 0 ? (
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
                    {preview.map((entry) => (
                      <tr key={entry.key}>
                        <td class="mono">{entry.key}</td>
                        <td>
                          <span class={`badge ${entry.change}`}>{CHANGE_LABELS[entry.change]}</span>
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
              <ActionButton
                type="button"
                class="button primary"
                busy={busy}
                blocked={toSave.length === 0}
                onClick={() => void runImport(toSave)}
              >
                {toSave.length === 0
                  ? "Nothing to import"
                  : `Import ${toSave.length} ${toSave.length === 1 ? "secret" : "secrets"}`}
              </ActionButton>
            </div>
          </section>
        )}
      </div>
    </Dialog>
  )
}

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))
