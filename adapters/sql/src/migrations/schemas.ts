/** The schemas area's migrations, merged into the one ordered list in `./index.ts`. */
import type { Migration } from "kysely"

export const schemasMigrations: Readonly<Record<string, Migration>> = {}
