/**
 * Where an e-mail address may wrap in a narrow column: after its `@`, after a dot of the domain, and in the part
 * before the `@` after the separators people put in names (`.`, `-`, `_`, `+`). Never inside one of the domain's
 * labels: `example.co` / `m` reads as another address, and a hyphen there (`example-corp`) belongs to the name.
 * Nor before the domain's last label: a `com` alone on a line reads as a stray word.
 * Text without an `@` is split as a part before one would be.
 */
export const emailParts = (address: string): ReadonlyArray<string> => {
  const at = address.lastIndexOf("@")
  const local = at === -1 ? address : address.slice(0, at + 1)
  const labels = at === -1 ? [] : address.slice(at + 1).split(/(?<=\.)/)
  const domain = labels.length < 2 ? labels : [...labels.slice(0, -2), labels.slice(-2).join("")]
  return [...local.split(/(?<=[@.\-_+])/), ...domain].filter((part) => part !== "")
}
