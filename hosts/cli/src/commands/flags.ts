/**
 * Flags that many commands share. None carries a token: argv is visible to every user of the machine, so keys
 * come from the environment, stdin or the user's config file only.
 */

import { Flag } from "effect/cli"
import * as Option from "effect/Option"
import type { FlagSettings } from "../settings.js"

export const url = Flag.String("url").pipe(
  Flag.withDescription("the secrets service's base URL (COFFER_URL)"),
  Flag.optional,
)
export const schemasUrl = Flag.String("schemas-url").pipe(
  Flag.withDescription("the schemas service's base URL (COFFER_SCHEMAS_URL)"),
  Flag.optional,
)
export const project = Flag.String("project").pipe(
  Flag.withAlias("p"),
  Flag.withDescription("project slug (COFFER_PROJECT; default: the API key's project)"),
  Flag.optional,
)
export const env = Flag.String("env").pipe(
  Flag.withAlias("e"),
  Flag.withDescription("environment name (COFFER_ENVIRONMENT)"),
  Flag.optional,
)
export const json = Flag.Boolean("json").pipe(Flag.withDescription("print JSON, for scripts"), Flag.withDefault(false))

/** The flags every secrets command takes. */
export const target = { url, project, env }

export interface TargetFlags {
  readonly url: Option.Option<string>
  readonly project: Option.Option<string>
  readonly env: Option.Option<string>
}

export const settingsOf = (flags: Partial<TargetFlags> & { readonly schemasUrl?: Option.Option<string> }) =>
  ({
    url: flags.url === undefined ? undefined : Option.getOrUndefined(flags.url),
    project: flags.project === undefined ? undefined : Option.getOrUndefined(flags.project),
    environment: flags.env === undefined ? undefined : Option.getOrUndefined(flags.env),
    schemasUrl: flags.schemasUrl === undefined ? undefined : Option.getOrUndefined(flags.schemasUrl),
  }) satisfies FlagSettings
