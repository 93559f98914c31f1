/**
 * Diffs for the History tab (issue 13 §4): between two revisions' contents, and between this version's output
 * and another version's. Both sides are printed as canonical JSON (keys sorted, two-space indents), so the diff
 * shows what changed, not how keys happened to be ordered, and compared line by line with Myers' algorithm
 * (shortest edit script, O((N+M)·D)). Common leading and trailing lines are set aside first; when the two sides
 * differ in more than `MAX_EDITS` lines the middle is shown as removed then added rather than searched further,
 * so a diff of two unrelated 4 MiB outputs still answers at once.
 */

export const MAX_EDITS = 1_000

export type DiffLine =
  | { readonly kind: "same"; readonly text: string; readonly before: number; readonly after: number }
  | { readonly kind: "removed"; readonly text: string; readonly before: number }
  | { readonly kind: "added"; readonly text: string; readonly after: number }

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** JSON with every object's keys sorted (code-unit order) and two-space indents. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(
    value,
    (_key, inner: unknown) =>
      isObject(inner)
        ? Object.fromEntries(
            Object.keys(inner)
              .sort()
              .map((key) => [key, inner[key]]),
          )
        : inner,
    2,
  ) ?? "null"

/** The edit script, as the lines of both sides in order; line numbers are 1-based. */
export const diffLines = (before: ReadonlyArray<string>, after: ReadonlyArray<string>): Array<DiffLine> => {
  let start = 0
  while (start < before.length && start < after.length && before[start] === after[start]) start++
  let endBefore = before.length
  let endAfter = after.length
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--
    endAfter--
  }
  const lines: Array<DiffLine> = []
  for (let index = 0; index < start; index++) {
    lines.push({ kind: "same", text: before[index]!, before: index + 1, after: index + 1 })
  }
  lines.push(...middle(before, start, endBefore, after, start, endAfter))
  for (let offset = 0; endBefore + offset < before.length; offset++) {
    lines.push({
      kind: "same",
      text: before[endBefore + offset]!,
      before: endBefore + offset + 1,
      after: endAfter + offset + 1,
    })
  }
  return lines
}

/** Myers over before[b0, b1) and after[a0, a1); line numbers relative to the whole sides. */
const middle = (
  before: ReadonlyArray<string>,
  b0: number,
  b1: number,
  after: ReadonlyArray<string>,
  a0: number,
  a1: number,
): Array<DiffLine> => {
  const n = b1 - b0
  const m = a1 - a0
  const replaced = (): Array<DiffLine> => [
    ...before.slice(b0, b1).map((text, index): DiffLine => ({ kind: "removed", text, before: b0 + index + 1 })),
    ...after.slice(a0, a1).map((text, index): DiffLine => ({ kind: "added", text, after: a0 + index + 1 })),
  ]
  if (n === 0 || m === 0) return replaced()
  const max = Math.min(n + m, MAX_EDITS)
  const offset = max + 1
  // v[k + offset]: the furthest x on diagonal k; each step's copy is kept to walk the path back.
  let v = new Int32Array(2 * max + 3)
  const trace: Array<Int32Array> = []
  let found = -1
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice())
    const next = v.slice()
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[k - 1 + offset]! < v[k + 1 + offset]!) ? v[k + 1 + offset]! : v[k - 1 + offset]! + 1
      let y = x - k
      while (x < n && y < m && before[b0 + x] === after[a0 + y]) {
        x++
        y++
      }
      next[k + offset] = x
      if (x >= n && y >= m) {
        found = d
        break
      }
    }
    v = next
  }
  if (found < 0) return replaced()
  // Walk back from (n, m), one edit per step.
  const reversed: Array<DiffLine> = []
  let x = n
  let y = m
  for (let d = found; d > 0; d--) {
    const previous = trace[d]!
    const k = x - y
    const down = k === -d || (k !== d && previous[k - 1 + offset]! < previous[k + 1 + offset]!)
    const prevK = down ? k + 1 : k - 1
    const prevX = previous[prevK + offset]!
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) {
      x--
      y--
      reversed.push({ kind: "same", text: before[b0 + x]!, before: b0 + x + 1, after: a0 + y + 1 })
    }
    if (down) {
      y--
      reversed.push({ kind: "added", text: after[a0 + y]!, after: a0 + y + 1 })
    } else {
      x--
      reversed.push({ kind: "removed", text: before[b0 + x]!, before: b0 + x + 1 })
    }
  }
  while (x > 0 && y > 0) {
    x--
    y--
    reversed.push({ kind: "same", text: before[b0 + x]!, before: b0 + x + 1, after: a0 + y + 1 })
  }
  return reversed.reverse()
}

/** The diff of two JSON values as canonical JSON, with the number of lines added and removed. */
export const diffJson = (before: unknown, after: unknown) => {
  const lines = diffLines(canonicalJson(before).split("\n"), canonicalJson(after).split("\n"))
  return {
    lines,
    added: lines.filter((line) => line.kind === "added").length,
    removed: lines.filter((line) => line.kind === "removed").length,
  }
}
