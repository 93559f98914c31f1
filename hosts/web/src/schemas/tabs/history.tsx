/**
 * The History tab (issue 13 §4): the revisions of this schema, newest first (every save is kept), a diff between
 * any two of them (once there are two), and a diff between this version's output and any other version's output.
 *
 * A person who may change the platform can restore an earlier revision: after a question that shows what it would
 * change, its content is saved again as the next revision, which the list then marks "restored from revision n".
 * The restore names the revision this page shows as current, so a save made meanwhile is not replaced unseen.
 */

import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "../../api/client.js"
import {
  listPlatforms,
  listRevisions,
  type RevisionSummary,
  readRevision,
  readSchema,
  restoreRevision,
  savedRevisionOf,
} from "../../api/schemas.js"
import { Alert, formatTime, Loading, LoadMore, Select } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAsync } from "../../ui/useAsync.js"
import { diffJson } from "../diff.js"
import { DiffView } from "../diffView.js"
import type { SchemaData } from "../pages/schema.js"
import { sortVersions } from "../versions.js"

/**
 * Every revision, newest first, loaded page by page as the person asks for older ones; `reload` loads it again from
 * the first page, when the schema's revision moved (a restore, or a save this page heard of). Asked for, not set off
 * by the revision changing, so that a restore can wait for the list before it is said done.
 */
const useRevisions = (platform: string, version: string) => {
  const [older, setOlder] = useState<ReadonlyArray<RevisionSummary>>([])
  const [next, setNext] = useState<number | null | undefined>()
  const first = useAsync(() => listRevisions(platform, version), [platform, version])
  useEffect(() => {
    setOlder([])
    setNext(first.data?.next)
  }, [first.data])
  return {
    revisions: first.data === undefined ? undefined : [...first.data.revisions, ...older],
    error: first.error,
    reload: first.reload,
    paged: older.length > 0,
    more:
      next === null || next === undefined
        ? undefined
        : async () => {
            const page = await listRevisions(platform, version, next)
            setOlder((previous) => [...previous, ...page.revisions])
            setNext(page.next)
          },
  }
}

const RevisionDiff = ({
  platform,
  version,
  revisions,
  onShown,
}: {
  readonly platform: string
  readonly version: string
  readonly revisions: ReadonlyArray<RevisionSummary>
  /** Called once the first diff (or its refusal) is drawn: what stands below it may be drawn then. */
  readonly onShown: () => void
}) => {
  const [from, setFrom] = useState(revisions[1]?.revision ?? revisions[0]!.revision)
  const [to, setTo] = useState(revisions[0]!.revision)
  const diff = useAsync(async () => {
    const [before, after] = await Promise.all([
      readRevision(platform, version, from),
      readRevision(platform, version, to),
    ])
    return diffJson(before.content, after.content)
  }, [platform, version, from, to])
  const shown = diff.data !== undefined || diff.error !== undefined
  useEffect(() => {
    if (shown) onShown()
  }, [shown])
  const label = (revision: RevisionSummary) =>
    `Revision ${revision.revision} (${formatTime(revision.savedAt)}, ${revision.savedBy})`
  return (
    <section class="card stack" aria-labelledby="revision-diff-heading">
      <h2 id="revision-diff-heading">Compare two revisions</h2>
      <div class="row">
        <Select label="From" value={String(from)} onChange={(event) => setFrom(Number(event.currentTarget.value))}>
          {revisions.map((revision) => (
            <option key={revision.revision} value={String(revision.revision)}>
              {label(revision)}
            </option>
          ))}
        </Select>
        <Select label="To" value={String(to)} onChange={(event) => setTo(Number(event.currentTarget.value))}>
          {revisions.map((revision) => (
            <option key={revision.revision} value={String(revision.revision)}>
              {label(revision)}
            </option>
          ))}
        </Select>
      </div>
      <Alert error={diff.error} />
      {diff.data === undefined ? (
        diff.error === undefined ? (
          <Loading what="the revisions" />
        ) : null
      ) : (
        <DiffView label={`Content, revision ${from} to revision ${to}`} {...diff.data} />
      )}
    </section>
  )
}

const OutputDiff = ({
  platform,
  version,
  output,
}: {
  readonly platform: string
  readonly version: string
  readonly output: unknown
}) => {
  const platforms = useAsync(listPlatforms, [])
  const [other, setOther] = useState("")
  const self = `${platform}/${version}`
  const choices =
    platforms.data
      ?.flatMap((item) => sortVersions(item.versions).map((v) => `${item.name}/${v}`))
      .filter((id) => id !== self) ?? []
  const diff = useAsync(async () => {
    if (other === "") return undefined
    const slash = other.indexOf("/")
    const theirs = await readSchema(other.slice(0, slash), other.slice(slash + 1)).catch((cause: unknown) => {
      // Listed versions exist, so a 404 here is a version whose schema was never saved.
      throw cause instanceof ApiError && cause.status === 404
        ? new Error(`${other} has no saved schema yet, so it has no output to compare with.`)
        : cause
    })
    return diffJson(theirs.output, output)
  }, [other, output])
  return (
    <section class="card stack" aria-labelledby="output-diff-heading">
      <h2 id="output-diff-heading">Compare the output with another version</h2>
      <Alert error={platforms.error} />
      <Select label="Other version" value={other} onChange={(event) => setOther(event.currentTarget.value)}>
        <option value="">Choose a version…</option>
        {choices.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </Select>
      <Alert error={diff.error} />
      {diff.data === undefined ? null : <DiffView label={`Output, ${other} to ${self}`} {...diff.data} />}
    </section>
  )
}

/**
 * The question before a restore, with what it would change: the content now against the revision's. The restore
 * lands only on `current`; a save made since is reported, the page brought up to date, and nothing restored.
 * A restore that landed closes the dialog once the page and the list of revisions show it (`reload`), so that the
 * list does not change under the pointer after the restore was said; meanwhile the question stays as it was asked.
 */
const RestoreDialog = ({
  platform,
  version,
  target,
  current,
  content,
  reload,
  onClose,
}: {
  readonly platform: string
  readonly version: string
  readonly target: number
  readonly current: number
  readonly content: unknown
  readonly reload: () => Promise<void>
  readonly onClose: () => void
}) => {
  const id = `${platform}/${version}`
  // What the question was asked about, until a restore lands: the page reloading behind the dialog before it
  // closes would otherwise redraw it about the restored content ("the same as now", revision numbers one higher).
  const landed = useRef(false)
  const asked = useRef({ content, current })
  if (!landed.current) asked.current = { content, current }
  const shown = asked.current
  const diff = useAsync(
    async () => diffJson(shown.content, (await readRevision(platform, version, target)).content),
    [platform, version, target, shown.content],
  )
  return (
    <ConfirmDialog
      title={`Restore revision ${target} of ${id}?`}
      action={`Restore revision ${target}`}
      tone="primary"
      wide
      onClose={onClose}
      run={async () => {
        const answer = await restoreRevision(platform, version, target, current).catch(async (cause: unknown) => {
          const now = savedRevisionOf(cause)
          if (now === undefined) throw cause
          await reload()
          throw new Error(
            `Someone saved ${id} since this page was loaded: it is at revision ${now} now, and nothing was ` +
              "restored. The history shows their save; restore again if revision " +
              `${target} should still replace it.`,
          )
        })
        landed.current = true
        await reload()
        onClose()
        const count = answer.reprocessed.length
        toast(
          `Restored revision ${target} of ${id} as revision ${answer.revision}` +
            (count === 0 ? "" : `; re-processed ${count} ${count === 1 ? "dependent" : "dependents"}`),
        )
      }}
    >
      <p>
        Its content is saved again as revision {shown.current + 1}, on top of revision {shown.current}, and resolved
        against what it extends as that is today; every schema extending {id} is re-processed. Revision {shown.current}{" "}
        and all the others stay in the history.
      </p>
      <Alert error={diff.error} />
      {diff.data === undefined ? (
        diff.error === undefined ? (
          <Loading what="the difference" />
        ) : null
      ) : diff.data.added + diff.data.removed === 0 ? (
        <p class="muted">Its content is the same as now: restoring it only adds a revision.</p>
      ) : (
        <DiffView label={`Content, now (revision ${shown.current}) to revision ${target}`} {...diff.data} />
      )}
    </ConfirmDialog>
  )
}

export const HistoryTab = ({ platform, version, schema, revision: current, canWrite, reload }: SchemaData) => {
  const { revisions, error, more, paged, reload: reloadRevisions } = useRevisions(platform, version)
  // The page's schema and its list of revisions together: what a restore, or a save found in its way, moved.
  const reloadBoth = async () => {
    await Promise.all([reload(), reloadRevisions()])
  }
  const [restoring, setRestoring] = useState<number>()
  // The comparison of outputs is drawn once what stands above it is: the list of revisions and the diff of the
  // latest two. Drawn first, the version to compare with was chosen at the top of the tab, then jumped down by the
  // list and again by the diff as they came, and a click meant for it landed on a Restore button.
  const [revisionDiffShown, setRevisionDiffShown] = useState(false)
  const comparesRevisions = revisions !== undefined && (revisions.length > 1 || more !== undefined)
  const aboveShown = (revisions !== undefined || error !== undefined) && (!comparesRevisions || revisionDiffShown)
  return (
    <div class="stack">
      <Alert error={error} />
      {revisions === undefined ? (
        error === undefined ? (
          <Loading what="the revisions" />
        ) : null
      ) : revisions.length === 0 ? (
        <p class="muted">No revisions yet: nothing has been saved for this version.</p>
      ) : (
        <>
          {canWrite ? (
            <p class="hint">Restoring a revision saves its content again as the newest revision; nothing is lost.</p>
          ) : null}
          {/* One block per revision on a phone, as the platform's versions are: three columns in 375 px left the
              e-mail a column too narrow for it, cut mid-word, where a line of its own holds it whole. */}
          <Table caption="Revisions, newest first" columns={["Revision", "Saved", "By"]} actions={canWrite} stacked>
            {revisions.map((item) => (
              <tr key={item.revision}>
                <th scope="row" data-label="Revision">
                  {item.revision}
                  {item.revision === current ? <span class="muted"> (current)</span> : null}
                  {/* A restore is a save like any other otherwise: say which revision came back. */}
                  {item.restoredFrom === null ? null : (
                    <span class="muted">{` restored from revision ${item.restoredFrom}`}</span>
                  )}
                </th>
                <td data-label="Saved">{formatTime(item.savedAt)}</td>
                <td data-label="By">{item.savedBy}</td>
                {canWrite ? (
                  <td class="right">
                    {item.revision === current ? null : (
                      <button
                        type="button"
                        class="button small"
                        aria-label={`Restore revision ${item.revision}`}
                        onClick={() => setRestoring(item.revision)}
                      >
                        Restore
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
          <LoadMore what="revisions" load={more} paged={paged} />
          {/* Saved once, there is nothing to diff: revision 1 against itself would only say "no differences". */}
          {revisions.length === 1 && more === undefined ? (
            <p class="muted">One revision so far: a second save gives two to compare.</p>
          ) : (
            <RevisionDiff
              platform={platform}
              version={version}
              revisions={revisions}
              onShown={() => setRevisionDiffShown(true)}
            />
          )}
        </>
      )}
      {restoring === undefined ? null : (
        <RestoreDialog
          platform={platform}
          version={version}
          target={restoring}
          current={current}
          content={schema?.content ?? null}
          reload={reloadBoth}
          onClose={() => setRestoring(undefined)}
        />
      )}
      {schema === null || !aboveShown ? null : (
        <OutputDiff platform={platform} version={version} output={schema.output} />
      )}
    </div>
  )
}
