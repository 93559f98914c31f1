/** The secrets area's migrations, merged into the one ordered list in `./index.ts`. */
import type { Migration } from "kysely"

export const secretsMigrations: Readonly<Record<string, Migration>> = {}
