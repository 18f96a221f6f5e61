/**
 * The command line of a test-server launcher: `[--http [--port N]] [--era both|modern|legacy] [-h]`, checked; a
 * bad one prints the error and the usage on stderr and exits 2.
 */
import { parseArgs } from "node:util"

export type Era = "both" | "modern" | "legacy"

export type Flags =
  | { readonly help: true }
  | { readonly help: false; readonly http: boolean; readonly port: number; readonly era: Era }

/** Parse `process.argv` for the launcher whose usage line is `usage`; the era is checked before the port. */
export const parseServerFlags = (usage: string): Flags => {
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n${usage}\n`)
    process.exit(2)
  }
  const values = (() => {
    try {
      return parseArgs({
        options: {
          http: { type: "boolean", default: false },
          port: { type: "string", default: "0" },
          era: { type: "string", default: "both" },
          help: { type: "boolean", short: "h", default: false }
        },
        strict: true
      }).values
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error))
    }
  })()
  if (values.help) return { help: true }
  const era = values.era === "both" || values.era === "modern" || values.era === "legacy"
    ? values.era
    : fail(`unknown --era: ${values.era}`)
  // `--port` counts (and is checked) only with `--http`.
  const port = values.http ? Number(values.port) : 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port: ${values.port}`)
  return { help: false, http: values.http, port, era }
}
