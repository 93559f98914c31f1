/** The sessions area's migrations, merged into the one ordered list in `./index.ts`. */
import type { Migration } from "kysely"

export const sessionsMigrations: Readonly<Record<string, Migration>> = {}
