/**
 * A secret's history (issue 12 §6): every version with who wrote it and when (and, for a restore, which version it
 * brought back), newest first; an old value is revealed only on request (audited as `secret.read` of `<KEY>@<n>`),
 * and restoring one makes it a new version, after a question: a restore changes what every program reading the
 * secret gets from then on. A link leads to the secret's audit trail: the audit log filtered by its key and
 * environment.
 */
import { useState } from "preact/hooks"
import { listVersions, readVersion, restoreVersion, type VersionListItem } from "../../api/secrets.js"
import { ActionButton, Alert, CopyButton, EmailAddress, formatTime, Loading } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { HiddenCharactersNote } from "../../ui/hiddenCharacters.js"
import { Link, type Params } from "../../ui/router.js"
import { SecretValue } from "../../ui/secretValue.js"
import { Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { type ProjectData, ProjectFrame, projectPath } from "../projectFrame.js"
import { auditPath } from "./auditFilters.js"

const VersionRow = ({
  data,
  environment,
  secretKey,
  item,
  current,
  onRestored,
}: {
  readonly data: ProjectData
  readonly environment: string
  readonly secretKey: string
  readonly item: VersionListItem
  /** The secret's current version, as the list shows it. */
  readonly current: number
  /** Reads the versions again. */
  readonly onRestored: () => Promise<void>
}) => {
  const [value, setValue] = useState<string>()
  const [restoring, setRestoring] = useState(false)
  const latest = item.version === current
  const { busy, error, run: act } = useAction((work: () => Promise<void>) => work())
  const slug = data.project.slug
  return (
    <tr>
      <th scope="row">
        {item.version}
        {latest ? <span class="muted"> (current)</span> : null}
        {/* A restore looks like any other write otherwise: say which old value came back. */}
        {item.restoredFrom === null ? null : <span class="muted">{` restored from v${item.restoredFrom}`}</span>}
      </th>
      <td data-label="Written by">
        {item.userEmail === null ? (
          <span class="muted">before history was kept</span>
        ) : (
          <EmailAddress address={item.userEmail} />
        )}
      </td>
      <td data-label="When">{formatTime(item.createdAt)}</td>
      <td class="value-cell">
        {value === undefined ? null : (
          <>
            <SecretValue label={`Value of version ${item.version}`} value={value === "" ? "(empty)" : value} />
            <HiddenCharactersNote value={value} />
          </>
        )}
        <div class="row">
          {/* One button that turns from Reveal into Hide, so that the keyboard focus stays on it. */}
          <ActionButton
            type="button"
            class="button small"
            busy={busy}
            aria-label={`${value === undefined ? "Reveal" : "Hide"} version ${item.version}`}
            onClick={() => {
              if (value !== undefined) setValue(undefined)
              else
                void act(async () => {
                  const { secret } = await readVersion(slug, environment, secretKey, item.version)
                  setValue(secret.value)
                })
            }}
          >
            {value === undefined ? "Reveal" : "Hide"}
          </ActionButton>
          {value === undefined ? null : <CopyButton value={value} label={`Copy version ${item.version}`} small />}
          {data.canWrite && !latest ? (
            <ActionButton
              type="button"
              class="button small"
              busy={busy}
              aria-label={`Restore version ${item.version}`}
              onClick={() => setRestoring(true)}
            >
              Restore
            </ActionButton>
          ) : null}
        </div>
        <Alert error={error} />
        {restoring ? (
          <ConfirmDialog
            title={`Restore version ${item.version} of ${secretKey}?`}
            action={`Restore version ${item.version}`}
            tone="primary"
            onClose={() => setRestoring(false)}
            run={async () => {
              const answer = await restoreVersion(slug, environment, secretKey, item.version)
              // The versions are read again before the toast names the new one: on a slow network the list still
              // showed the version before as current beside it, then the new row pushed every row down.
              await onRestored()
              setRestoring(false)
              toast(`Restored version ${item.version} of ${secretKey} as version ${answer.version}`)
            }}
          >
            <p>
              Its value becomes the current value of <code>{secretKey}</code> in {environment}, as a new version: every
              program that reads it gets that value from then on. Version {current}, the value now, stays in the history
              and can be restored in turn.
            </p>
          </ConfirmDialog>
        ) : null}
      </td>
    </tr>
  )
}

const VersionList = ({
  data,
  environment,
  secretKey,
}: {
  readonly data: ProjectData
  readonly environment: string
  readonly secretKey: string
}) => {
  const versions = useAsync(
    () => listVersions(data.project.slug, environment, secretKey),
    [data.project.slug, environment, secretKey],
  )
  const list = versions.data?.versions
  return (
    <>
      <h2>
        History of <code>{secretKey}</code> in {environment}
      </h2>
      <p class="row">
        <Link href={projectPath(data.project.slug)}>Back to the secrets</Link>
        <Link href={auditPath(data.project.slug, { key: secretKey, environment })}>
          Audit trail of <code>{secretKey}</code> in {environment}
        </Link>
      </p>
      <p class="hint">
        Revealing an old value is recorded in the audit log.
        {/* A read member cannot restore: the page does not invite them to. */}
        {data.canWrite ? " Restoring makes it the newest version." : null}
      </p>
      <Alert error={versions.error} />
      {list === undefined ? (
        versions.loading ? (
          <Loading what="versions" />
        ) : null
      ) : (
        <Table caption="Versions, newest first" columns={["Version", "Written by", "When", "Value"]} stacked>
          {list.map((item) => (
            <VersionRow
              key={item.version}
              data={data}
              environment={environment}
              secretKey={secretKey}
              item={item}
              current={list[0]!.version}
              onRestored={versions.reload}
            />
          ))}
        </Table>
      )}
    </>
  )
}

export const History = ({ params }: { readonly params: Params }) => (
  <ProjectFrame slug={params.slug!}>
    {(data) => <VersionList data={data} environment={params.env!} secretKey={params.key!} />}
  </ProjectFrame>
)
