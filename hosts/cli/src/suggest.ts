/**
 * "Did you mean …?" for a word where a command was expected, as git and npm answer a mistyped command: the nearest
 * commands at the level it was typed (`coffer secrets lst`: `coffer secrets list`), a command it begins (`coffer
 * env`: `coffer environments`, as git takes `git stat` for `git status`), and, when nothing at that level is near,
 * the same word one level down (`coffer pull`: `coffer secrets pull`). A word near nothing gets no suggestion
 * (`coffer status`), rather than a guess. `effect/cli` suggests only near words at the same level, each without its
 * path; this replaces its list in the error it reports (`main.ts`), and the server's `coffer` uses it for the
 * commands it owns as well.
 */
import type { Command } from "effect/cli"

type AnyCommand = Command.Command.Any

/** The most edits (a letter added, dropped, changed, or two side by side swapped) a near word may be away. */
const MAX_DISTANCE = 2

/** Edits between `a` and `b`, a swap of two neighbours counting as one (`lsit` is one from `list`). */
export const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The names among `names` nearest to `word`: those it is a prefix of (two letters at least), else those at the
 * fewest edits, at most two and fewer than half its letters (so that `ls` is not taken for `get`); none when none is.
 */
export const nearestNames = (word: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const typed = word.toLowerCase()
  const prefixed = typed.length >= 2 ? names.filter((name) => name.startsWith(typed) && name !== typed) : []
  if (prefixed.length > 0) return prefixed
  const limit = Math.min(MAX_DISTANCE, Math.ceil(typed.length / 2) - 1)
  const scored = names.map((name) => [editDistance(typed, name), name] as const).filter(([d]) => d <= limit)
  const least = Math.min(...scored.map(([d]) => d))
  return scored.filter(([d]) => d === least).map(([, name]) => name)
}

/** A command's listed subcommands (those its help shows): an unlisted one is never revealed by a typo. */
const children = (command: AnyCommand): ReadonlyArray<AnyCommand> =>
  command.subcommands.flatMap((group) => group.commands).filter((sub) => !sub.unlisted)

/**
 * The commands to suggest for `word`, typed where the command at `path` (`["coffer", "secrets"]`) takes a
 * subcommand, each as the whole command line to type (`coffer secrets list`); `extra` names more commands at that
 * level that the tree does not hold (the server's own).
 */
export const suggestCommands = (
  root: AnyCommand,
  path: ReadonlyArray<string>,
  word: string,
  extra: ReadonlyArray<string> = [],
): ReadonlyArray<string> => {
  let parent: AnyCommand | undefined = root
  for (const name of path.slice(1)) parent = parent && children(parent).find((sub) => sub.name === name)
  if (parent === undefined) return []
  const prefix = path.join(" ")
  const here = nearestNames(word, [...children(parent).map((sub) => sub.name), ...extra])
  if (here.length > 0) return here.map((name) => `${prefix} ${name}`)
  // Nothing near here: the word may name a command of a group (`coffer pull` for `coffer secrets pull`).
  const below = children(parent).flatMap((group) => children(group).map((sub) => [group.name, sub.name] as const))
  const near = new Set(nearestNames(word, [...new Set(below.map(([, name]) => name))]))
  return below.filter(([, name]) => near.has(name)).map(([group, name]) => `${prefix} ${group} ${name}`)
}
