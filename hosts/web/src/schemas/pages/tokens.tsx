/**
 * API tokens (issue 13 §5, admins): create one with a name and a platform scope (every platform, or a chosen
 * list; why Create token is not offered yet is said beside it), shown once with a copy button; the list with
 * hint, scope ("None: its platforms were deleted" once a deletion emptied it), creator, creation and last use;
 * revoking after a confirmation.
 * People without the admin permission are told so instead (the service would answer 403).
 */
import { useState } from "preact/hooks"
import { createToken, listPlatforms, listTokens, revokeToken, type TokenRecord } from "../../api/schemas.js"
import { ActionButton, Alert, Field, formatTime, Loading } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { ShownOnce } from "../../ui/shownOnce.js"
import { RowAction, Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { useAbilities } from "../session.js"

const CREATE_TOKEN_FORM = "create-token"

const CreateToken = ({ onCreated }: { readonly onCreated: (token: string, record: TokenRecord) => void }) => {
  const platforms = useAsync(listPlatforms, [])
  const [name, setName] = useState("")
  const [scope, setScope] = useState<"all" | "chosen">("all")
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set())
  const names = (platforms.data ?? []).map((platform) => platform.name).sort()
  const unnamed = name.trim() === ""
  const none = scope === "chosen" && chosen.size === 0
  // Why Create token is greyed out, said beside it rather than left to be guessed.
  const why = none
    ? platforms.data !== undefined && names.length === 0
      ? `${unnamed ? "Name the token; " : ""}there is no platform to choose yet: choose Every platform, or create one first.`
      : `${unnamed ? "Name the token and tick" : "Tick"} at least one platform above, or choose Every platform.`
    : unnamed
      ? "Name the token to create it."
      : undefined
  const create = useAction(async () => {
    const answer = await createToken(name, scope === "all" ? undefined : [...chosen].sort())
    setName("")
    setChosen(new Set())
    onCreated(answer.token, answer.record)
  })
  return (
    <form id={CREATE_TOKEN_FORM} class="card stack" aria-label="Create an API token" onSubmit={create.submit}>
      <h2>New API token</h2>
      <p class="hint">Tokens are read-only: services and CI jobs read schemas with them.</p>
      <Field
        label="Token name"
        name="name"
        required
        autoComplete="off"
        maxLength={100}
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <fieldset class="stack">
        <legend>Platforms it may read</legend>
        <label class="check">
          <input type="radio" name="scope" checked={scope === "all"} onChange={() => setScope("all")} /> Every platform,
          present and future
        </label>
        <label class="check">
          <input type="radio" name="scope" checked={scope === "chosen"} onChange={() => setScope("chosen")} /> Only the
          platforms chosen below
        </label>
        {scope === "chosen" ? (
          <fieldset class="choices">
            <legend class="visually-hidden">Chosen platforms</legend>
            <Alert error={platforms.error} />
            {names.map((platform) => (
              <label key={platform} class="check">
                <input
                  type="checkbox"
                  checked={chosen.has(platform)}
                  onChange={(event) => {
                    const next = new Set(chosen)
                    if (event.currentTarget.checked) next.add(platform)
                    else next.delete(platform)
                    setChosen(next)
                  }}
                />{" "}
                {platform}
              </label>
            ))}
          </fieldset>
        ) : null}
      </fieldset>
      <Alert error={create.error} />
      <div class="row middle">
        <ActionButton
          class="button primary"
          type="submit"
          busy={create.busy}
          blocked={why !== undefined}
          aria-describedby={why === undefined ? undefined : "create-token-why"}
        >
          Create token
        </ActionButton>
        {why === undefined ? null : (
          <p id="create-token-why" class="hint">
            {why}
          </p>
        )}
      </div>
    </form>
  )
}

/**
 * The question before a revocation. It closes once the list no longer shows the token (`reload`), as a version's
 * deletion does: closed before, the revoked token stood in the list with its Revoke button after "Revoked" was said,
 * until the list came back and the rows below moved up under the pointer.
 */
const RevokeToken = ({
  record,
  reload,
  onClose,
}: {
  readonly record: TokenRecord
  readonly reload: () => Promise<void>
  readonly onClose: () => void
}) => (
  <ConfirmDialog
    title={`Revoke ${record.name}?`}
    action="Revoke token"
    onClose={onClose}
    run={async () => {
      await revokeToken(record.id)
      await reload()
      onClose()
      toast(`Revoked ${record.name}`)
    }}
    gone={{
      said: `${record.name} was already revoked`,
      after: async () => {
        await reload()
        onClose()
      },
    }}
  >
    <p>Every service using this token ({record.hint}) loses access at once. This cannot be undone.</p>
  </ConfirmDialog>
)

export const Tokens = () => {
  const abilities = useAbilities()
  const tokens = useAsync(async () => (abilities.manage ? listTokens() : undefined), [abilities.manage])
  const [created, setCreated] = useState<{ readonly token: string; readonly record: TokenRecord }>()
  const [revoking, setRevoking] = useState<TokenRecord>()
  if (!abilities.manage) {
    return (
      <section class="stack">
        <h1>API tokens</h1>
        <p class="alert" role="alert">
          Managing API tokens needs the admin permission, which your groups do not give.
        </p>
      </section>
    )
  }
  const list = tokens.data
  return (
    <section class="stack">
      <h1>API tokens</h1>
      <Alert error={tokens.error} />
      {list === undefined ? (
        tokens.loading ? (
          <Loading what="tokens" />
        ) : null
      ) : list.length === 0 ? (
        <p class="muted">There are no API tokens.</p>
      ) : (
        <Table
          caption="API tokens"
          columns={["Name", "Hint", "Platforms", "Created by", "Created", "Last used"]}
          actions
          stacked
        >
          {list.map((record) => (
            <tr key={record.id}>
              {/* The name (up to 64 characters) and the platforms wrap; the rest reads whole. Every cell may break
                  anywhere, so the table shares its width out by unbroken length: a long name kept on one line left
                  the platforms and the e-mail a few letters wide. */}
              <th scope="row" class="wraps">
                {record.name}
              </th>
              <td data-label="Hint" class="nowrap">
                <code>{record.hint}</code>
              </td>
              <td data-label="Platforms" class="wraps">
                {record.platforms === null ? (
                  "All platforms"
                ) : record.platforms.length === 0 ? (
                  <span
                    class="muted"
                    title="Every platform it named was deleted; revoke it, or create one for other platforms"
                  >
                    None: its platforms were deleted
                  </span>
                ) : (
                  // A deleted platform leaves every token's list (SchemaStore rule 6): each name is one that exists.
                  record.platforms.join(", ")
                )}
              </td>
              <td data-label="Created by" class="nowrap">
                {record.createdBy}
              </td>
              <td data-label="Created" class="nowrap">
                {formatTime(record.createdAt)}
              </td>
              <td data-label="Last used" class="nowrap">
                {formatTime(record.lastUsedAt)}
              </td>
              <td class="right">
                {/* Named with its hint too: names need not be unique, and two tokens named "ci" read the same. */}
                <RowAction label={`Revoke token ${record.name} (${record.hint})`} onClick={() => setRevoking(record)}>
                  Revoke
                </RowAction>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {/* Once the list above it is in (or refused): drawn under "Loading tokens…", the form jumped down by the
          whole list as it came, from under the pointer and a name being typed. */}
      {list === undefined && tokens.error === undefined ? null : (
        <CreateToken
          onCreated={(token, record) => {
            setCreated({ token, record })
            void tokens.reload()
          }}
        />
      )}
      {created === undefined ? null : (
        <ShownOnce
          title={`Token ${created.record.name} created`}
          label={`Token ${created.record.name}`}
          value={created.token}
          note={
            <>
              Coffer keeps only its hash. A service or CI job sends it as <code>Authorization: Bearer …</code>, or sets
              it as <code>COFFER_SCHEMAS_TOKEN</code> for <code>coffer schemas get</code>; a schema's Output tab shows
              both commands.
            </>
          }
          onDone={() => setCreated(undefined)}
          // Create token is greyed out under it (the form was emptied for the next token): the focus goes to the
          // field that comes first, rather than to the top of the page.
          returnFocus={() => document.querySelector<HTMLElement>(`#${CREATE_TOKEN_FORM} input[name="name"]`)}
        />
      )}
      {revoking === undefined ? null : (
        <RevokeToken record={revoking} reload={tokens.reload} onClose={() => setRevoking(undefined)} />
      )}
    </section>
  )
}
