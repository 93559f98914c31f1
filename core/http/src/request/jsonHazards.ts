/**
 * What `JSON.parse` takes without a word but changes: a key written twice in one object (the last wins, the first
 * is dropped) and a number JavaScript cannot hold as written: an integer beyond ±2^53 that no double is, which comes
 * back as another integer (`9007199254740993` as `…992`: an account id, silently another one), or a number beyond a double's
 * range, which becomes `Infinity` and no JSON at all. Stored, either would be data other than what was sent, so a
 * body holding one is refused, saying where.
 *
 * One pass over text that `JSON.parse` has already accepted, so it need not guard against malformed input;
 * strings are skipped whole, and a key is decoded only when it holds an escape (`"a"` and `"\u0061"` are one key).
 * It imports nothing: the dashboard's editor runs it too (`@coffer/http/jsonHazards`), so a number its Format
 * button would change, or a key a save would drop, is said before either happens.
 */

/** A step into the document: an object's key or an array's index (`content.list[2].id`). */
type Step = { readonly key: string } | { readonly index: number }

interface Frame {
  /** The keys seen so far in an object; `undefined` for an array. */
  readonly keys: Set<string> | undefined
  /** An object's current key, or an array's current index. */
  step: Step
  /** In an object, whether the next string is a key. */
  expectsKey: boolean
}

const keyText = (key: string) =>
  /^[A-Za-z_$][\w$-]{0,63}$/.test(key) ? key : JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)

const where = (stack: ReadonlyArray<Frame>): string =>
  stack
    .map(({ step }, depth) => ("index" in step ? `[${step.index}]` : `${depth === 0 ? "" : "."}${keyText(step.key)}`))
    .join("")

/** Integers of 16 digits or more may be beyond 2^53; shorter ones never are. */
const SAFE_DIGITS = 15

const numberHazard = (literal: string): string | undefined => {
  const integer = !/[.eE]/.test(literal)
  const value = Number(literal)
  const shown = literal.length > 40 ? `${literal.slice(0, 40)}…` : literal
  // Kept when it reads back as written (`1152921504606847000`, as JavaScript writes 2^60) or is exactly a double
  // (`1152921504606846976`, 2^60 in full); 2^53 + 1 is neither.
  const kept = () => String(value) === literal || BigInt(literal) === BigInt(value)
  if (integer && literal.replace("-", "").length > SAFE_DIGITS && Number.isFinite(value) && !kept()) {
    return `${shown}, an integer JSON numbers do not keep exactly (beyond ±9007199254740991): write it as a string`
  }
  if (!Number.isFinite(value)) return `${shown}, a number too large to keep: write it as a string`
  return undefined
}

const isNumberStart = (char: number) => char === 0x2d /* - */ || (char >= 0x30 && char <= 0x39)
const isNumberPart = (char: number) =>
  (char >= 0x30 && char <= 0x39) || char === 0x2e || char === 0x2d || char === 0x2b || char === 0x65 || char === 0x45

/**
 * Why `text` (JSON that parsed) would not be kept as sent, or `undefined` when it would; `subject` names the
 * document in the sentence (the dashboard's editor checks its content with the same words).
 */
export const jsonHazard = (text: string, subject = "The request body"): string | undefined => {
  const stack: Array<Frame> = []
  const top = () => stack[stack.length - 1]
  let i = 0
  while (i < text.length) {
    const char = text.charCodeAt(i)
    if (char === 0x7b /* { */) {
      stack.push({ keys: new Set(), step: { key: "" }, expectsKey: true })
      i++
    } else if (char === 0x5b /* [ */) {
      stack.push({ keys: undefined, step: { index: 0 }, expectsKey: false })
      i++
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop()
      i++
    } else if (char === 0x2c /* , */) {
      const frame = top()!
      if (frame.keys === undefined) frame.step = { index: (frame.step as { index: number }).index + 1 }
      else frame.expectsKey = true
      i++
    } else if (char === 0x22 /* " */) {
      let end = i + 1
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1
      const frame = top()
      if (frame?.keys !== undefined && frame.expectsKey) {
        const raw = text.slice(i, end + 1)
        const key: string = raw.includes("\\") ? JSON.parse(raw) : raw.slice(1, -1)
        frame.step = { key }
        frame.expectsKey = false
        if (frame.keys.has(key)) return `${subject} gives ${where(stack)} twice in one object: write each key once`
        frame.keys.add(key)
      }
      i = end + 1
    } else if (isNumberStart(char)) {
      let end = i + 1
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end++
      const hazard = numberHazard(text.slice(i, end))
      if (hazard !== undefined) {
        return stack.length === 0 ? `${subject} is ${hazard}` : `${subject}'s ${where(stack)} holds ${hazard}`
      }
      i = end
    } else i++
  }
  return undefined
}
