/** Why the person may not change a platform, shown at the top of its pages (issue 13 §1). */
import { LockIcon } from "./kinds.js"

export const LockedNotice = ({ reason }: { readonly reason: string | undefined }) =>
  reason === undefined ? null : (
    <p class="notice locked" role="note">
      <LockIcon /> <strong>Locked:</strong> {reason}
    </p>
  )
