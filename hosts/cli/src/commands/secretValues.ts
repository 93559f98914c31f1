/**
 * `coffer secrets set`, `get` and `delete`: secrets by key. `set KEY=VALUE…` writes each pair; `set KEY`
 * alone takes the value from stdin (hidden when typed), so it stays out of shell history. `set
 * --expected-version N` writes one key only if it is still at version N (0: only if it does not exist yet), the
 * service's check-and-set, for a script that read a version and must not replace a change made since. `get` is
 * one of the few commands that print a value, because that is what it is for. `delete KEY…` deletes only once
 * every key is known to be there, and says which were deleted if it stops midway (`../secretDeletion.ts`).
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { confirmYesNo, deleteQuestion, describeKeys } from "../confirm.js"
import { CofferFailure, notFound, usage } from "../failure.js"
import { json, line, note, write } from "../output.js"
import { checkDeletion, closedReport, stoppedReport, uniqueKeys } from "../secretDeletion.js"
import { checkWritable } from "../secretRules.js"
import { deleteSecret, getSecret, listSecrets, me, setSecret } from "../secretsApi.js"
import { readHidden, readStdin, stdinIsTerminal, withoutFinalNewline } from "../stdin.js"
import { targetFor } from "../target.js"
import { requireWriter } from "../writeAccess.js"
import { settingsOf, target } from "./flags.js"

/** `KEY=VALUE` split at the first `=`; a bare `KEY` has no value yet. */
export const parseAssignment = (text: string): { readonly key: string; readonly value: string | undefined } => {
  const equals = text.indexOf("=")
  return equals === -1 ? { key: text, value: undefined } : { key: text.slice(0, equals), value: text.slice(equals + 1) }
}

/**
 * The value of `set KEY`: typed (hidden), or piped without the line break `echo` adds. A stdin with nothing at all
 * (`< /dev/null`, a closed pipe) is refused: more often a mistake than a wish, and `KEY=` sets an empty value.
 */
const valueFromInput = (key: string) =>
  stdinIsTerminal()
    ? readHidden(`Value for ${key}: `)
    : Effect.flatMap(readStdin, (text) =>
        text.length === 0
          ? Effect.fail(usage(`nothing on stdin for ${key}: pipe a value in, or write ${key}= for an empty one`))
          : Effect.succeed(withoutFinalNewline(text)),
      )

export const set = Command.make(
  "set",
  {
    ...target,
    assignments: Argument.String("KEY=VALUE").pipe(
      Argument.withDescription(
        "pairs to set (KEY= sets an empty value), or one KEY alone to read its value from stdin",
      ),
      Argument.variadic({ min: 1 }),
    ),
    expectedVersion: Flag.Int("expected-version").pipe(
      Flag.withDescription(
        "write only if the key is at this version now (0: only if it does not exist yet); otherwise exit 4, nothing written",
      ),
      Flag.optional,
    ),
  },
  Effect.fn(function* (flags) {
    const pairs = flags.assignments.map(parseAssignment)
    const bare = pairs.filter((pair) => pair.value === undefined)
    if (bare.length > 0 && pairs.length > 1) {
      return yield* usage("give KEY=VALUE pairs, or one KEY alone with its value on stdin")
    }
    if (pairs.some((pair) => pair.key.length === 0)) return yield* usage("a KEY=VALUE pair has no key")
    const expectedVersion = Option.getOrUndefined(flags.expectedVersion)
    if (expectedVersion !== undefined && pairs.length > 1) {
      return yield* usage("--expected-version is the version of one key: give one KEY=VALUE, or one KEY")
    }
    if (expectedVersion !== undefined && expectedVersion < 0) {
      return yield* usage("--expected-version must be a whole number from 0 (0: the key must not exist yet)")
    }
    yield* checkWritable(pairs.map((pair) => [pair.key, pair.value ?? ""] as const))
    const where = yield* targetFor(settingsOf(flags))
    for (const pair of pairs) {
      const value = pair.value ?? (yield* valueFromInput(pair.key))
      const written = yield* setSecret(where, pair.key, value, expectedVersion)
      yield* line(`${pair.key}: ${written.action}, version ${written.version}`)
    }
  }),
).pipe(
  Command.withDescription("Set secrets: KEY=VALUE pairs, or one KEY with its value on stdin (kept out of history)"),
  Command.withExamples([
    { command: "coffer secrets set --env production LOG_LEVEL=info PORT=8080", description: "two values at once" },
    { command: "coffer secrets set --env production DB_PASSWORD < password.txt", description: "value from stdin" },
    {
      command: "coffer secrets set --env production --expected-version 3 LOG_LEVEL=debug",
      description: "only over version 3 (secrets list shows it): a change made since is not replaced",
    },
  ]),
)

export const get = Command.make(
  "get",
  {
    ...target,
    key: Argument.String("KEY").pipe(Argument.withDescription("the secret to print")),
    plain: Flag.Boolean("plain").pipe(
      Flag.withDescription("print the value exactly, with no line break added"),
      Flag.withDefault(false),
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print the secret as JSON"), Flag.withDefault(false)),
  },
  Effect.fn(function* (flags) {
    const secret = yield* getSecret(yield* targetFor(settingsOf(flags)), flags.key)
    if (flags.json) return yield* json(secret)
    yield* flags.plain ? write(secret.value) : line(secret.value)
  }),
).pipe(
  Command.withDescription("Print one secret's value"),
  Command.withExamples([
    { command: "coffer secrets get --env staging DB_URL", description: "the value and a line break" },
    { command: "coffer secrets get --env staging TLS_KEY --plain > key.pem", description: "the exact bytes" },
  ]),
)

export const remove = Command.make(
  "delete",
  {
    ...target,
    keys: Argument.String("KEY").pipe(
      Argument.withDescription("the secrets to delete, all their versions with them (a key given twice counts once)"),
      Argument.variadic({ min: 1 }),
    ),
    yes: Flag.Boolean("yes").pipe(
      Flag.withAlias("y"),
      Flag.withDescription("delete without asking (needed where stdin is not a terminal: scripts, CI)"),
      Flag.withDefault(false),
    ),
  },
  Effect.fn(function* (flags) {
    const keys = uniqueKeys(flags.keys)
    const where = yield* targetFor(settingsOf(flags))
    const place = `${where.project}/${where.environment}`
    // One list, not a request per key: every key is known to be there, and the credential to be one that may
    // delete, before anything is asked or deleted.
    const [listed, identity] = yield* Effect.all([listSecrets(where), me(where.endpoint)], { concurrency: 2 })
    const held = new Map(listed.map((item) => [item.key, item.version]))
    const { invalid, missing } = checkDeletion(keys, held)
    if (invalid.length > 0) {
      const reasons = invalid.map(({ key, reason }) => `${JSON.stringify(key)}: ${reason}`)
      return yield* usage(`${reasons.join("; ")}; nothing was deleted`)
    }
    if (missing.length > 0) return yield* notFound(`${place} has no ${missing.join(", ")}; nothing was deleted`)
    yield* requireWriter(identity, "deleting secrets")
    const several = keys.length > 1
    yield* confirmYesNo({
      yes: flags.yes,
      question: deleteQuestion(keys, place),
      refusal: `deleting ${describeKeys(keys)} from ${place} deletes ${several ? "their" : "its"} history too: pass --yes to do it`,
    })
    // One at a time, in the order given: a failure then leaves no request in flight whose outcome is unknown. Each
    // at the version listed, so a value saved by someone else since the list (or while the question waited) stops
    // the run rather than being deleted unseen.
    for (const [index, key] of keys.entries()) {
      yield* deleteSecret(where, key, held.get(key)).pipe(
        Effect.mapError(
          (failure) =>
            new CofferFailure({
              kind: failure.kind,
              ...(failure.status === undefined ? {} : { status: failure.status }),
              message: stoppedReport({
                deleted: keys.slice(0, index),
                failedOn: key,
                rest: keys.slice(index + 1),
                reason: failure.message,
                answered: failure.status !== undefined,
              }),
            }),
        ),
      )
      // Stdout closed by its reader (`| head -n 1`) ends the run here with 141, as it would any program's; what was
      // deleted and what was not is still said, on stderr.
      yield* line(`${key}: deleted, with its history`).pipe(
        Effect.tapError(() => note(closedReport(keys.slice(0, index + 1), keys.slice(index + 1)))),
      )
    }
  }),
).pipe(
  Command.withDescription(
    "Delete one or more secrets and their history; asks first on a terminal, unless --yes; every key must exist",
  ),
  Command.withExamples([
    { command: "coffer secrets delete --env staging OLD_TOKEN", description: "asks, then deletes on y" },
    { command: "coffer secrets delete --env staging OLD_TOKEN --yes", description: "in a script: gone for good" },
    {
      command: "coffer secrets delete --env staging OLD_TOKEN LEGACY_URL --yes",
      description: "several: nothing is deleted unless every one exists",
    },
  ]),
)
