/**
 * People (issue 12 §8): the project's members with their roles, owner first. The owner changes a member's role,
 * removes someone (their API keys for the project go with them), invites with a link shown once, sees pending
 * invites and withdraws one, after a confirmation (the link goes with it). A member leaves the project. What each
 * person sees follows seed 001 §5: anyone in the project sees the members; only the owner manages people.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"
import {
  createInvite,
  deleteInvite,
  type InviteView,
  listInvites,
  listMembers,
  type MemberRole,
  type MemberView,
  removeMember,
  updateMemberRole,
} from "../../api/secrets.js"
import { ActionButton, Alert, formatTime, Loading, Select } from "../../ui/components.js"
import { ConfirmDialog } from "../../ui/confirmDialog.js"
import { navigate, type Params } from "../../ui/router.js"
import { ShownOnce } from "../../ui/shownOnce.js"
import { RowAction, Table } from "../../ui/table.js"
import { toast } from "../../ui/toast.js"
import { useAction } from "../../ui/useAction.js"
import { useAsync } from "../../ui/useAsync.js"
import { type ProjectData, ProjectFrame } from "../projectFrame.js"
import { roleLabel } from "../roles.js"
import { useSession } from "../session.js"

const nameOf = (member: MemberView) => member.email ?? member.userId

/** Removing someone else, or leaving: one dialog, since both are `DELETE /members/:userId`. */
const RemoveMember = ({
  data,
  member,
  leaving,
  onClose,
  onRemoved,
}: {
  readonly data: ProjectData
  readonly member: MemberView
  readonly leaving: boolean
  readonly onClose: () => void
  readonly onRemoved: () => Promise<void>
}) => (
  <ConfirmDialog
    title={leaving ? `Leave ${data.project.name}?` : `Remove ${nameOf(member)}?`}
    action={leaving ? "Leave project" : "Remove member"}
    onClose={onClose}
    run={async () => {
      await removeMember(data.project.slug, member.userId)
      await onRemoved()
      toast(leaving ? `You left ${data.project.name}` : `Removed ${nameOf(member)}`)
    }}
    gone={{
      said: leaving
        ? `You were no longer a member of ${data.project.name}`
        : `${nameOf(member)} was no longer a member`,
      after: onRemoved,
    }}
  >
    <p>
      {leaving
        ? "You lose access to its secrets at once, and your API keys for it are deleted. Only a new invite brings you back."
        : `${nameOf(member)} loses access at once, and their API keys for this project are deleted.`}
    </p>
  </ConfirmDialog>
)

/** Withdrawing a pending invite: its link, shown only once, cannot be brought back, so it asks first. */
const WithdrawInvite = ({
  slug,
  invite,
  onClose,
  onWithdrawn,
}: {
  readonly slug: string
  readonly invite: InviteView
  readonly onClose: () => void
  readonly onWithdrawn: () => Promise<void>
}) => (
  <ConfirmDialog
    title={`Withdraw the ${roleLabel(invite.role).toLowerCase()} invite?`}
    action="Withdraw invite"
    onClose={onClose}
    run={async () => {
      await deleteInvite(slug, invite.id)
      await onWithdrawn()
      toast("Invite withdrawn: its link no longer works")
    }}
    gone={{ said: "That invite was no longer pending", after: onWithdrawn }}
  >
    <p>
      The invite created {formatTime(invite.createdAt)} stops working at once: whoever has its link can no longer join
      with it. The link cannot be shown again; to invite someone after all, create a new one.
    </p>
  </ConfirmDialog>
)

/**
 * A member's role, changed explicitly (as the Schemas dashboard's Change kind): the select only picks, and Change
 * role applies. A closed select's value changes on every arrow key, so a select that sent the change at once granted
 * and took away rights while the person was only looking through the roles.
 */
const RoleChange = ({
  data,
  member,
  onChanged,
}: {
  readonly data: ProjectData
  readonly member: MemberView
  readonly onChanged: () => Promise<void>
}) => {
  // Never the owner's: the owner's role is not offered for change.
  const current = member.role as MemberRole
  const [role, setRole] = useState(current)
  // The list read again (after this change, or one made elsewhere) is what the select starts from.
  useEffect(() => setRole(current), [current])
  const change = useAction(async () => {
    await updateMemberRole(data.project.slug, member.userId, role)
    await onChanged()
    toast(`${nameOf(member)} now: ${roleLabel(role)}`)
  })
  return (
    <form class="row" onSubmit={change.submit}>
      <select
        aria-label={`Role of ${nameOf(member)}`}
        value={role}
        onChange={(event) => setRole(event.currentTarget.value as MemberRole)}
      >
        <option value="read">{roleLabel("read")}</option>
        <option value="write">{roleLabel("write")}</option>
      </select>
      {/* Greyed out until another role is picked; named for its row, since every row has one. */}
      <ActionButton
        type="submit"
        class="button small"
        aria-label={`Change role of ${nameOf(member)}`}
        busy={change.busy}
        blocked={role === current}
      >
        Change role
      </ActionButton>
      <Alert error={change.error} />
    </form>
  )
}

const Members = ({
  data,
  children,
}: {
  readonly data: ProjectData
  /** What comes under the list, drawn once the list is in (or refused). */
  readonly children?: ComponentChildren
}) => {
  const { current: user } = useSession()
  const members = useAsync(() => listMembers(data.project.slug), [data.project.slug])
  const [removing, setRemoving] = useState<MemberView>()
  const isOwner = data.project.role === "owner"
  const list = members.data?.members
  return (
    <>
      <h2>Members</h2>
      <Alert error={members.error} />
      {list === undefined ? (
        members.loading ? (
          <Loading what="members" />
        ) : null
      ) : (
        // One block per person on phones: the role select and Remove stay in view without scrolling sideways.
        <Table
          caption={`Members of ${data.project.name}`}
          columns={["Person", "Role", { label: "Joined", class: "hide-narrow" }]}
          actions
          stacked
        >
          {list.map((member) => {
            const self = member.userId === user?.id
            return (
              <tr key={member.userId}>
                <th scope="row">
                  {nameOf(member)}
                  {self ? <span class="muted"> (you)</span> : null}
                </th>
                <td data-label="Role">
                  {isOwner && member.role !== "owner" ? (
                    <RoleChange data={data} member={member} onChanged={members.reload} />
                  ) : (
                    roleLabel(member.role)
                  )}
                </td>
                <td class="hide-narrow">{formatTime(member.createdAt)}</td>
                <td class="right">
                  {member.role === "owner" ? null : self ? (
                    <RowAction onClick={() => setRemoving(member)}>Leave project</RowAction>
                  ) : isOwner ? (
                    <RowAction label={`Remove ${nameOf(member)}`} onClick={() => setRemoving(member)}>
                      Remove
                    </RowAction>
                  ) : null}
                </td>
              </tr>
            )
          })}
        </Table>
      )}
      {removing === undefined ? null : (
        <RemoveMember
          data={data}
          member={removing}
          leaving={removing.userId === user?.id}
          onClose={() => setRemoving(undefined)}
          onRemoved={async () => {
            const left = removing.userId === user?.id
            setRemoving(undefined)
            if (left) navigate("/projects")
            else await members.reload()
          }}
        />
      )}
      {/* Drawn under "Loading members…", the invite form jumped down by the whole list as it came, from under the
          pointer. */}
      {list === undefined && members.loading ? null : children}
    </>
  )
}

const Invites = ({ data }: { readonly data: ProjectData }) => {
  const slug = data.project.slug
  const invites = useAsync(() => listInvites(slug), [slug])
  const [role, setRole] = useState<MemberRole>("read")
  // The link shown once, with the invite it opens: withdrawing that invite takes the dead link away.
  const [link, setLink] = useState<{ readonly url: string; readonly inviteId: string }>()
  const create = useAction(async () => {
    const answer = await createInvite(slug, role)
    setLink({ url: answer.url, inviteId: answer.invite.id })
    await invites.reload()
  })
  const [withdrawing, setWithdrawing] = useState<InviteView>()
  const list = invites.data?.invites
  return (
    <>
      <form class="card stack" aria-label="Invite someone" onSubmit={create.submit}>
        <h2>Invite someone</h2>
        <p class="hint">
          An invite is a link that works once, for 7 days, for whoever opens it first while signed in. Send it to the
          person privately.
        </p>
        <Select label="Role" value={role} onChange={(event) => setRole(event.currentTarget.value as MemberRole)}>
          <option value="read">{roleLabel("read")}</option>
          <option value="write">{roleLabel("write")}</option>
        </Select>
        <Alert error={create.error} />
        <div>
          <ActionButton type="submit" class="button primary" busy={create.busy}>
            Create invite link
          </ActionButton>
        </div>
        {link === undefined ? null : (
          <ShownOnce
            title="Invite link created"
            label="Invite link"
            value={link.url}
            onDone={() => setLink(undefined)}
          />
        )}
      </form>
      <h2>Pending invites</h2>
      <Alert error={invites.error} />
      {list === undefined ? (
        invites.loading ? (
          <Loading what="invites" />
        ) : null
      ) : list.length === 0 ? (
        <p class="muted">No pending invites.</p>
      ) : (
        <Table
          caption="Pending invites"
          columns={["Role", "Created", { label: "Expires", class: "hide-narrow" }]}
          actions
        >
          {list.map((invite) => (
            <tr key={invite.id}>
              <td>{roleLabel(invite.role)}</td>
              <td>{formatTime(invite.createdAt)}</td>
              <td class="hide-narrow">{formatTime(invite.expiresAt)}</td>
              <td class="right">
                <RowAction
                  label={`Withdraw the ${roleLabel(invite.role).toLowerCase()} invite created ${formatTime(invite.createdAt)}`}
                  onClick={() => setWithdrawing(invite)}
                >
                  Withdraw
                </RowAction>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {withdrawing === undefined ? null : (
        <WithdrawInvite
          slug={slug}
          invite={withdrawing}
          onClose={() => setWithdrawing(undefined)}
          onWithdrawn={async () => {
            setWithdrawing(undefined)
            // The link shown once goes with its invite: nothing dead is left on the page to copy and send.
            if (link?.inviteId === withdrawing.id) setLink(undefined)
            await invites.reload()
          }}
        />
      )}
    </>
  )
}

export const People = ({ params }: { readonly params: Params }) => (
  <ProjectFrame slug={params.slug!}>
    {(data) => (
      <>
        <Members data={data}>{data.project.role === "owner" ? <Invites data={data} /> : null}</Members>
      </>
    )}
  </ProjectFrame>
)
