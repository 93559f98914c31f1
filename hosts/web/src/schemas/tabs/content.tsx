/**
 * The Content tab (issue 13 §4): the schema's JSON in an editor, checked as it is typed with the API's own rules
 * (`content.ts`: JSON, a plain object, `@extends` a string or an array of well-formed references), with help on
 * the reference forms. Saving shows the resolved output and every dependent the cascade re-processed. What only
 * the service can say (an unresolved reference, `Circular dependency detected`) is shown under the editor, with
 * the line where the reference it names is written; until the text changes, the line under the editor then says the
 * save was refused rather than that the content is valid. Unsaved text survives leaving the tab or the page
 * (`drafts.ts`), is said to be unsaved, and closing the page while it is asks first.
 *
 * A save made by someone else since the editing started is never replaced unseen: the save names the revision the
 * editing started from (`expectedRevision`), so that the service refuses it (409) if another save landed since
 * (a draft kept before revisions were reads the schema first and compares its content). The tab then says so and
 * offers the choice: load their content, keep editing, or save anyway (on top of the revision now saved). Discarding
 * the changes also loads what is saved now, which may be someone else's since the page was loaded.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import { readSchemaToEdit, savedRevisionOf, saveSchema } from "../../api/schemas.js"
import { useCalmAnnouncement } from "../../ui/calmAnnouncement.js"
import { ActionButton, Alert } from "../../ui/components.js"
import { useLeaveWarning } from "../../ui/leaveWarning.js"
import { Link } from "../../ui/router.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { checkContent, REFERENCE_FORMS } from "../content.js"
import { draftSaved, keepDraft, readDraft } from "../drafts.js"
import { lineOfReference, schemasNamedIn } from "../errorPlaces.js"
import type { SchemaData } from "../pages/schema.js"
import { schemaIdPath } from "../paths.js"
import { whileSaving } from "../savesUnderWay.js"
import { useSession } from "../session.js"

const pretty = (value: unknown) => JSON.stringify(value, null, 2)

interface Saved {
  readonly output: Record<string, unknown>
  readonly reprocessed: ReadonlyArray<string>
}

/** The schema as saved now, with its revision; nothing saved reads as `null` at revision 0, as at the start. */
const readCurrent = (platform: string, version: string): Promise<{ content: unknown; revision: number }> =>
  readSchemaToEdit(platform, version).catch((cause: unknown) => {
    // Any other refusal is the caller's to report.
    if (cause instanceof ApiError && cause.status === 404 && cause.message.startsWith("Schema for version"))
      return { content: null, revision: 0 }
    throw cause
  })

export const ContentTab = ({ platform, version, schema, revision, canWrite, reload }: SchemaData) => {
  const id = `${platform}/${version}`
  // Whose draft this tab keeps: the page is shown only to someone signed in.
  const person = useSession().current?.session.user.id ?? ""
  // The text as saved: what the editor shows when nothing is being changed.
  const [baseline, setBaseline] = useState(() => pretty(schema?.content ?? {}))
  const [draft] = useState(() => (canWrite ? readDraft(person, id) : undefined))
  const [text, setText] = useState(() => draft?.text ?? baseline)
  const [saved, setSaved] = useState<Saved>()
  // The content the editing started from, as the service held it (a kept draft's own, not what is saved now), and
  // its revision, which the save names (`undefined` only for a draft kept before revisions were).
  const [startedFrom, setStartedFrom] = useState(() => draft?.startedFrom ?? JSON.stringify(schema?.content ?? null))
  const [startedRevision, setStartedRevision] = useState(() => (draft === undefined ? revision : draft.startedRevision))
  // The revision someone else's save left the schema at, once a save found it (by reading first, or refused by the
  // service): then the tab asks, and "Save anyway" saves on top of that revision, and only of that one.
  const [overtaken, setOvertaken] = useState<number>()
  const dirty = canWrite && text !== baseline
  useEffect(
    () => keepDraft(person, id, dirty ? { text, startedFrom, startedRevision } : undefined),
    [person, id, text, dirty, startedFrom, startedRevision],
  )
  useLeaveWarning(dirty)
  const check = checkContent(text)
  const save = useAction(async () => {
    if (!check.ok) return
    try {
      let expectedRevision = overtaken ?? startedRevision
      if (expectedRevision === undefined) {
        // A draft kept before revisions were: only its content tells whether someone saved since. Equal, the
        // revision just read is its own; any later save is the service's to refuse, as for every other save.
        const now = await readCurrent(platform, version)
        if (JSON.stringify(now.content) !== startedFrom) {
          setOvertaken(now.revision)
          return
        }
        expectedRevision = now.revision
      }
      // Known to a page of this schema opened while it runs (another tab clicked meanwhile), which reads after it; and
      // the kept draft settled by the save itself, which may answer after this tab was left.
      const saving = saveSchema(platform, version, check.content, expectedRevision).then((answer) => {
        draftSaved(person, id, text, answer.schema.content, answer.revision)
        return answer
      })
      const answer = await whileSaving(id, saving).catch((cause: unknown) => {
        // Another save landed between the read above and this one: the service refused it, nothing was written.
        const current = savedRevisionOf(cause)
        if (current === undefined) throw cause
        return current
      })
      if (typeof answer === "number") {
        setOvertaken(answer)
        return
      }
      setBaseline(text)
      setStartedFrom(JSON.stringify(answer.schema.content))
      setStartedRevision(answer.revision)
      setOvertaken(undefined)
      setSaved({ output: answer.schema.output, reprocessed: answer.reprocessed })
      const count = answer.reprocessed.length
      toast(`Saved ${id}${count === 0 ? "" : `; re-processed ${count} ${count === 1 ? "dependent" : "dependents"}`}`)
      await reload()
    } catch (cause) {
      setSaved(undefined)
      throw cause
    }
  })
  // What is saved now replaces this text, which is then no longer a change: editing starts again from it. Both
  // "Load their content" and "Discard changes": the content the page was loaded with may be someone's since.
  const editor = useRef<HTMLTextAreaElement>(null)
  const loadSaved = useAction(async () => {
    const pressed = document.activeElement
    const current = await readCurrent(platform, version)
    const theirs = pretty(current.content ?? {})
    // The button pressed goes with the notice it is in, once the text is no longer a change: the focus goes to the
    // text it brought back, where editing starts again, not to the top of the page. Moved before the button goes,
    // and only from it: a person who has moved on keeps their place.
    if (pressed !== null && document.activeElement === pressed) editor.current?.focus()
    setBaseline(theirs)
    setText(theirs)
    setStartedFrom(JSON.stringify(current.content))
    setStartedRevision(current.revision)
    setOvertaken(undefined)
    save.setError(undefined)
    await reload()
  })
  const { busy, error, setError } = save
  const serverLine =
    error instanceof Error && check.ok ? lineOfReference(text, check.references, error.message) : undefined
  const places = error instanceof Error ? schemasNamedIn(error.message) : []
  // The line under the editor says one thing at a time: after a refused save, until the text changes, the refusal
  // (said in full below), not a green "Valid" beside it. A 400 or 413 judged this content; any other refusal (the
  // session, the service down) did not, and is said without calling the content wrong.
  const refusedContent = error instanceof ApiError && (error.status === 400 || error.status === 413)
  const checked: { readonly text: string; readonly tone: "ok" | "invalid" | "" } = !check.ok
    ? { text: check.message, tone: "invalid" }
    : error !== undefined
      ? refusedContent
        ? { text: "Not saved: the service refused this content, as said below.", tone: "invalid" }
        : { text: "Not saved, for the reason below.", tone: "" }
      : {
          text:
            check.references.length === 0
              ? "Valid JSON object; it extends nothing."
              : check.references.length === 1
                ? `Valid; it extends ${check.references[0]}, with this content merged on top.`
                : `Valid; it extends ${check.references.join(", ")} (merged in that order, then this content on top).`,
          tone: "ok",
        }
  const announced = useCalmAnnouncement(checked.text, checked.tone)
  return (
    <div class="stack">
      {/* Said from what this tab knows: the first save (or their content loaded) takes it away together with the
          "Unsaved changes" line, not again when the page's reload comes back, which moved the editor and its
          buttons up under the pointer a moment after the save was said. */}
      {schema === null && (startedRevision ?? 0) === 0 ? (
        <p class="muted">Nothing has been saved for this version yet.</p>
      ) : null}
      {dirty ? (
        <div class="notice row" role="status">
          <span>Unsaved changes: kept in this browser tab until you save or discard them.</span>
          <ActionButton type="button" class="button small" busy={loadSaved.busy} onClick={loadSaved.submit}>
            Discard changes
          </ActionButton>
        </div>
      ) : null}
      <Alert error={loadSaved.error} />
      <form class="stack" aria-label="Schema content" onSubmit={save.submit}>
        <div class="field">
          <label for="schema-content">Content (JSON)</label>
          <textarea
            ref={editor}
            id="schema-content"
            class="editor"
            spellcheck={false}
            rows={Math.min(30, Math.max(8, text.split("\n").length + 1))}
            readOnly={!canWrite}
            aria-invalid={checked.tone === "invalid"}
            aria-describedby="schema-content-check"
            value={text}
            onInput={(event) => {
              setText(event.currentTarget.value)
              setError(undefined)
            }}
          />
          {/* The field's description, at once; hidden from reading in the page, where the live region below says
              the same, so it is not heard twice. */}
          <p id="schema-content-check" class={checked.tone === "" ? "hint" : `hint ${checked.tone}`} aria-hidden="true">
            {checked.text}
          </p>
          {/* Said when the verdict changes or the typing pauses, never over each keystroke. */}
          <p class="visually-hidden" aria-live="polite" id="schema-content-said">
            {announced}
          </p>
        </div>
        {error === undefined ? null : (
          <div class="stack">
            <Alert error={error} />
            {serverLine === undefined ? null : <p class="hint invalid">The reference is on line {serverLine}.</p>}
            {places.length === 0 ? null : (
              <p class="hint">
                Where it arises:{" "}
                {places.map((id, index) => (
                  <span key={id}>
                    {index === 0 ? "" : " → "}
                    {id === `${platform}/${version}` ? (
                      <strong>{id} (this schema)</strong>
                    ) : (
                      <Link href={schemaIdPath(id)}>{id}</Link>
                    )}
                  </span>
                ))}
              </p>
            )}
          </div>
        )}
        {overtaken === undefined ? null : (
          <div class="alert stack" role="alert">
            <p>
              Someone saved {id} since you started editing. Save anyway replaces their content (it stays in the
              history), or look at the History tab first: your text is kept here.
            </p>
            <div class="row">
              <ActionButton type="button" class="button small" busy={loadSaved.busy} onClick={loadSaved.submit}>
                Load their content
              </ActionButton>
            </div>
          </div>
        )}
        {canWrite ? (
          <div class="row">
            <ActionButton class="button primary" type="submit" busy={busy} blocked={!check.ok}>
              {overtaken === undefined ? "Save schema" : "Save anyway"}
            </ActionButton>
            <button
              type="button"
              class="button"
              disabled={!check.ok}
              onClick={() => check.ok && setText(pretty(check.content))}
            >
              Format
            </button>
          </div>
        ) : null}
      </form>
      <details class="card">
        <summary>How to write @extends</summary>
        <p>
          <code>"@extends"</code> is one reference (<code>"ios/1.2.0"</code>) or an array of them (
          <code>["base", "ios/^1.2.0"]</code>), merged left to right, then this content on top. Objects merge key by
          key; arrays, values and <code>null</code> replace.
        </p>
        <dl class="forms">
          {REFERENCE_FORMS.map((form) => (
            <div key={form.form}>
              <dt>
                <code>{form.form}</code>
              </dt>
              <dd>{form.meaning}</dd>
            </div>
          ))}
        </dl>
      </details>
      {saved === undefined ? null : (
        <section class="card stack" aria-labelledby="saved-heading">
          <h2 id="saved-heading">Saved</h2>
          {saved.reprocessed.length === 0 ? (
            <p>No other schema extends this one: nothing else was re-processed.</p>
          ) : (
            <>
              <p>
                The cascade re-processed {saved.reprocessed.length}{" "}
                {saved.reprocessed.length === 1 ? "dependent schema" : "dependent schemas"}:
              </p>
              <ul aria-label="Re-processed schemas">
                {saved.reprocessed.map((id) => (
                  <li key={id}>
                    <Link href={schemaIdPath(id)}>{id}</Link>
                  </li>
                ))}
              </ul>
            </>
          )}
          <figure class="diff-figure">
            <figcaption>Output</figcaption>
            <pre class="code">{pretty(saved.output)}</pre>
          </figure>
        </section>
      )}
    </div>
  )
}
