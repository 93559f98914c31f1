/** How roles read on the page. */
const ROLE_LABELS: Readonly<Record<string, string>> = { owner: "Owner", write: "Can write", read: "Can read" }

export const roleLabel = (role: string) => ROLE_LABELS[role] ?? role
