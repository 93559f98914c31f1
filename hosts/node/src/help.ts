/**
 * Help text for the `coffer` command and each of its subcommands.
 */

export const commands = {
  main: `coffer: configuration schemas and secrets, as two HTTP services

Usage: coffer <command> [options]

Commands:
  serve        start the Schemas and Secrets services
  migrate      apply database migrations and exit
  accounts     list the secrets service's accounts; link and unlink sign-in identities
  keys         re-wrap the data keys under the current master key; rotate data keys

  The user commands (@coffer/cli) speak HTTP to a running service:
  login        check an API key or schemas token and store it; logout, whoami
  init         write .coffer.json: the project, environment and URLs of a directory
  run          run a command with an environment's secrets (coffer secrets run)
  secrets      run a command with an environment's secrets; pull, substitute, push,
               import, copy, set, get, list, delete, history, restore, diff, audit
  environments list, create (empty or as a copy of another) and delete environments
  schemas      print resolved schemas (exact version, latest or a range); list, diff
  completions  print a bash, zsh, fish or PowerShell completion script

Run \`coffer <command> --help\` for a command's options.
Server settings are read from the environment; see the README's configuration table.`,
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
sqlite:.coffer/coffer.db) and prints the names of those applied. Needs no
COFFER_MASTER_KEY.

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
e-mail address as the subject. Needs no COFFER_MASTER_KEY.
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
identities stay. The sessions the identity started end at once. Its next
sign-in is a first one again. The account's API keys keep working: they are
the account's, not the identity's (delete them on the API keys page).

Options:
  -h, --help   show this help`,
  keys: `Usage: coffer keys rotate [--data-keys [--project SLUG]]

Master-key rotation for the secrets service, on COFFER_DATABASE_URL (migrated
first). Each project's data key is wrapped by the master key; rotating re-wraps
them under COFFER_MASTER_KEY, opening them with COFFER_MASTER_KEY_PREVIOUS.
Values are not re-encrypted, and the service may keep running.

  1. openssl rand -base64 32 gives a new key.
  2. With several instances, first restart each with COFFER_MASTER_KEY=<old>
     and COFFER_MASTER_KEY_PREVIOUS=<new>: every one can then open what the
     new key wraps, so the next step leaves none that cannot read a project
     created meanwhile. (One instance: go to step 3.)
  3. Restart every instance with COFFER_MASTER_KEY=<new> and
     COFFER_MASTER_KEY_PREVIOUS=<old>.
  4. Run \`coffer keys rotate\` with the same settings.
  5. Restart without COFFER_MASTER_KEY_PREVIOUS. Keep the old key, apart from
     the backups, until every backup taken before the rotation has expired:
     restoring one needs it (as COFFER_MASTER_KEY_PREVIOUS).

Data-key rotation: \`coffer keys rotate --data-keys\` gives every project (or
the one named by --project) a fresh data key and re-seals all its values under
it, while the service runs.

Run \`coffer keys rotate --help\` for details.`,
  "keys rotate": `Usage: coffer keys rotate [--data-keys [--project SLUG]]

Without --data-keys: re-wraps every project's data key (every version of it)
under COFFER_MASTER_KEY; data keys wrapped under a key in
COFFER_MASTER_KEY_PREVIOUS are opened with it. Prints how many were re-wrapped
and the new master key's id (never the key). Safe to repeat and safe while the
service runs. Exits with 1, naming the projects, when a data key was wrapped by
a master key that is not configured.

With --data-keys: gives each project a fresh data key version and re-seals
every value it stores (all environments, all history) under it, in batches,
each value replaced only if unchanged meanwhile, so the service may keep
running. Old versions keep opening until re-sealed, and are kept. A run that
stopped is resumed by running it again. Prints counts per project, never a
value or key; exits with 1 when a value did not open (it is left as it was).

Options:
  --data-keys      rotate the projects' data keys instead of re-wrapping them
  --project SLUG   only this project (with --data-keys)
  -h, --help       show this help`,
} as const
