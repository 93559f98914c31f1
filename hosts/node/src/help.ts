/**
 * Help text for the `coffer` command and each of its subcommands.
 */

export const commands = {
  main: `coffer: configuration schemas and secrets, as two HTTP services

Usage: coffer <command> [options]

Commands:
  serve      start the Schemas and Secrets services
  migrate    apply database migrations and exit

Run \`coffer <command> --help\` for a command's options.
Settings are read from the environment; see the README's configuration table.`,
  serve: `Usage: coffer serve [--only schemas|secrets]

Starts both services, each on its own port (COFFER_SCHEMAS_PORT, default 8787;
COFFER_SECRETS_PORT, default 8788; 0 picks a free port). Migrations run first.
Prints one line per service: "coffer <service> listening on http://HOST:PORT".
Stops gracefully on SIGTERM or SIGINT: requests in flight finish, pools close.

Options:
  --only schemas|secrets   run just one of the two services
  -h, --help               show this help`,
  migrate: `Usage: coffer migrate

Applies every pending migration to COFFER_DATABASE_URL (default
sqlite:.coffer/coffer.db) and prints the names of those applied.

Options:
  -h, --help   show this help`,
} as const
