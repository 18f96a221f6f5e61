/**
 * `info`: the server's era, protocol version, name, capabilities and instructions, and how long connecting took.
 */
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson } from "../terminal/print.js"

const capabilityList = (capabilities: Readonly<Record<string, unknown>>) =>
  Object.entries(capabilities).map(([name, value]) => {
    const flags = typeof value === "object" && value !== null
      ? Object.entries(value).filter(([, on]) => on === true).map(([flag]) => flag)
      : []
    return flags.length === 0 ? name : `${name} (${flags.join(", ")})`
  }).join(", ")

export const info = Command.make("info", shared, (options) =>
  withClient(options, (client, _status, startedAt) =>
    Effect.gen(function*() {
      const details = yield* client.info
      const connectMs = Date.now() - startedAt
      if (options.json) return yield* printJson({ ...details, connectMs })
      const server = details.serverInfo === undefined
        ? "(unnamed)"
        : `${details.serverInfo.name} ${details.serverInfo.version}`
      yield* print([
        `server:        ${server}`,
        `era:           ${details.era} (protocol ${details.protocolVersion})`,
        `capabilities:  ${capabilityList(details.capabilities) || "(none)"}`,
        `instructions:  ${(details.instructions ?? "(none)").trim().split("\n").join("\n               ")}`,
        `connected in:  ${connectMs} ms`
      ].join("\n"))
    }))).pipe(Command.withDescription("the server: era, protocol version, name, capabilities, instructions"))
