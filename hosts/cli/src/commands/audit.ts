/**
 * `coffer secrets audit`: a project's audit log, newest first, narrowed by the service's filters (action, secret
 * key, person, environment, API key) and paged; each entry says whether its person acted through an API key (`VIA`:
 * the key's name) or a session. `--env` here filters; it does not pick the environment a command works on,
 * so neither COFFER_ENVIRONMENT nor `.coffer.json` narrows the log unasked.
 */

import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { json, line, table } from "../output.js"
import { type AuditEntry, auditLog, environments } from "../secretsApi.js"
import { projectFor } from "../target.js"
import { json as jsonFlag, project, settingsOf, url } from "./flags.js"

const filter = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

/**
 * The log as a table. `VIA` beside `BY`: the API key the person acted through (`key <name>`), or `session`; `-`
 * where a service does not say.
 */
export const auditTable = (entries: ReadonlyArray<AuditEntry>, environments: ReadonlyMap<string, string>): string => {
  const environmentOf = (id: string | null) => (id === null ? "-" : (environments.get(id) ?? "(deleted)"))
  const via = (entry: AuditEntry) =>
    entry.apiKey === undefined ? "-" : entry.apiKey === null ? "session" : `key ${entry.apiKey.name}`
  return table([
    ["TIME", "ACTION", "TARGET", "ENVIRONMENT", "BY", "VIA", "FROM"],
    ...entries.map((entry) => [
      entry.createdAt,
      entry.action,
      entry.targetKey,
      environmentOf(entry.environmentId),
      entry.userEmail,
      via(entry),
      entry.ipAddress ?? "-",
    ]),
  ])
}

export const audit = Command.make(
  "audit",
  {
    url,
    project,
    action: filter("action", "only this action, e.g. secret.read or secrets.exported"),
    key: filter("key", "only this secret's entries (its reads of old versions and restores too)"),
    user: filter("user", "only what this e-mail address did"),
    env: filter("env", "only this environment's entries").pipe(Flag.withAlias("e")),
    apiKey: filter(
      "api-key",
      "only what was done with this API key, by its id (`--json` gives each entry's apiKey.id)",
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("entries to print, 1 to 500"), Flag.withDefault(50)),
    offset: Flag.Int("offset").pipe(Flag.withDescription("newest entries to skip"), Flag.withDefault(0)),
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const { endpoint, project: slug } = yield* projectFor(settingsOf({ url: flags.url, project: flags.project }))
    // The service checks the filters and the page (a 400 names the parameter); nothing is guessed here.
    const [entries, known] = yield* Effect.all(
      [
        auditLog(endpoint, slug, {
          action: Option.getOrUndefined(flags.action),
          key: Option.getOrUndefined(flags.key),
          user: Option.getOrUndefined(flags.user),
          environment: Option.getOrUndefined(flags.env),
          apiKey: Option.getOrUndefined(flags.apiKey),
          limit: flags.limit,
          offset: flags.offset,
        }),
        environments(endpoint, slug),
      ],
      { concurrency: 2 },
    )
    const names = new Map(known.map((environment) => [environment.id, environment.name]))
    // With `--json`, each entry as the service gives it (`apiKey` null from a service that does not say), and its
    // environment's name beside the id (null for none or one deleted since).
    if (flags.json)
      return yield* json(
        entries.map((entry) => ({
          ...entry,
          apiKey: entry.apiKey ?? null,
          environment: entry.environmentId === null ? null : (names.get(entry.environmentId) ?? null),
        })),
      )
    if (entries.length === 0) return yield* line("(no entries)")
    yield* line(auditTable(entries, names))
  }),
).pipe(
  Command.withDescription("Show the project's audit log, newest first: reads, changes and exports"),
  Command.withExamples([
    { command: "coffer secrets audit --key DB_URL --env production", description: "who read or changed it" },
    { command: "coffer secrets audit --action secrets.exported --json", description: "every export, for a script" },
    { command: "coffer secrets audit --api-key <id>", description: "what one API key did (a leaked key's trail)" },
  ]),
)
