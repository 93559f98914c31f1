/**
 * Help text for the `coffer` command and each of its subcommands.
 */

export const commands = {
  main: `coffer: configuration schemas and secrets, as two HTTP services

Usage: coffer <command> [options]

Commands:
  serve      start the Schemas and Secrets services
  migrate    apply database migrations and exit
  accounts   list the secrets service's accounts; link and unlink sign-in identities

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
  accounts: `Usage: coffer accounts <list|link|unlink> [arguments]

The secrets service's accounts, on COFFER_DATABASE_URL (migrated first). People
sign in by identity (issuer and subject), never by e-mail. A first sign-in
whose e-mail an older account already holds is refused (409) until an operator
links the new identity to that account:

  coffer accounts list                               accounts and their identities
  coffer accounts link <userId> <issuer> <subject>   the identity signs in to the account
  coffer accounts unlink <issuer> <subject>          the identity signs in to no account

Development logins use the issuer urn:coffer:development and the lower-cased
e-mail address as the subject.
Run \`coffer accounts <subcommand> --help\` for details.`,
  "accounts list": `Usage: coffer accounts list [--json]

Prints every account, oldest first: its id, e-mail address and creation time,
then one indented line per identity (issuer, subject, when it was linked).

Options:
  --json       print a JSON array instead
  -h, --help   show this help`,
  "accounts link": `Usage: coffer accounts link <userId> <issuer> <subject>

Links a sign-in identity to an existing account (its id, from \`coffer accounts
list\`): from now on that identity signs in to the account. Fails when the
account does not exist, or when the identity signs in to another account
(unlink it first). Linking an identity again to the same account is harmless.

Options:
  -h, --help   show this help`,
  "accounts unlink": `Usage: coffer accounts unlink <issuer> <subject>

Removes a sign-in identity from its account; the account and its other
identities stay. The identity's next sign-in is a first one again.

Options:
  -h, --help   show this help`,
} as const
