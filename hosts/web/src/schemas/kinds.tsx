/**
 * Platform kinds (seed 000 §2): how each is named, described and drawn. Display only: a kind never changes
 * identifiers or resolution. Records without a kind come from the service as `custom` and read as Custom.
 */
import type { Kind } from "../api/schemas.js"

export const KINDS: ReadonlyArray<Kind> = ["ios", "android", "web", "service", "custom"]

export const KIND_LABELS: Readonly<Record<Kind, string>> = {
  ios: "iOS",
  android: "Android",
  web: "Web",
  service: "Service",
  custom: "Custom",
}

export const KIND_DESCRIPTIONS: Readonly<Record<Kind, string>> = {
  ios: "An iPhone or iPad app",
  android: "An Android app",
  web: "A web front end in the browser",
  service: "A back-end service or job",
  custom: "Anything else",
}

/**
 * The kind's outline (`icons/<kind>.svg`), drawn by the stylesheet as a mask in the text colour: one element per
 * row instead of an inline SVG tree, which keeps a list of a thousand platforms quick to lay out and paint.
 */
export const KindIcon = ({ kind }: { readonly kind: Kind }) => <span class={`icon kind-${kind}`} aria-hidden="true" />

/** A padlock, for platforms the person may not change. */
export const LockIcon = () => <span class="icon small icon-lock" aria-hidden="true" />

/** The kind as a label with its icon and, for sighted readers and screen readers alike, its description. */
export const KindBadge = ({ kind }: { readonly kind: Kind }) => (
  <span class="kind" title={KIND_DESCRIPTIONS[kind]}>
    <KindIcon kind={kind} />
    <span>{KIND_LABELS[kind]}</span>
    <span class="muted kind-description">{KIND_DESCRIPTIONS[kind]}</span>
  </span>
)

export const KindOptions = () => (
  <>
    {KINDS.map((kind) => (
      <option key={kind} value={kind}>
        {KIND_LABELS[kind]}: {KIND_DESCRIPTIONS[kind]}
      </option>
    ))}
  </>
)
