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

// One 24 × 24 outline per kind, drawn with the text colour.
const PATHS: Readonly<Record<Kind, string>> = {
  ios: "M8 2h8a2 2 0 0 1 2 2v16a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zM11 18h2",
  android: "M5 10h14v8a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2zM6 9a6 6 0 0 1 12 0zM9 6.5h.01M15 6.5h.01M3 11v5M21 11v5",
  web: "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM3 12h18M12 3c3 3.5 3 14.5 0 18M12 3c-3 3.5-3 14.5 0 18",
  service: "M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01",
  custom: "M12 3l9 5v8l-9 5l-9-5V8zM12 12l9-4M12 12v9M12 12L3 8",
}

export const KindIcon = ({ kind }: { readonly kind: Kind }) => (
  <svg class="kind-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
    <path d={PATHS[kind]} fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" />
  </svg>
)

/** A padlock, for platforms the person may not change. */
export const LockIcon = () => (
  <svg class="kind-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
    <path
      d="M6 11h12v10H6zM8 11V7a4 4 0 0 1 8 0v4"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
    />
  </svg>
)

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
