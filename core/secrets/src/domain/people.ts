/**
 * The rules about people in a project that do not depend on who is asking (seed 001 §3 and §4 "People"): whether
 * an invite can still be used, whether a member's role or membership may change, and which API keys a person
 * sees. The use cases apply them; stores only keep the rows they read.
 */

/** An invite can be used (or withdrawn) while it is unused and not expired at `now` (epoch milliseconds). */
export const isPending = (invite: { readonly usedAt: number | null; readonly expiresAt: number }, now: number) =>
  invite.usedAt === null && invite.expiresAt > now

/**
 * Whether the role or the membership of `userId` may change: anyone's but the owner's. The owner neither changes
 * role nor leaves; the project is deleted instead.
 */
export const isChangeableMember = (project: { readonly ownerId: string }, userId: string): boolean =>
  userId !== project.ownerId

/**
 * Whether `userId` sees an API key (§4 API keys): their own keys, and every key of the projects they own, so that
 * an owner can withdraw a member's key.
 */
export const seesApiKey = (
  key: { readonly userId: string },
  project: { readonly ownerId: string },
  userId: string,
): boolean => key.userId === userId || project.ownerId === userId
