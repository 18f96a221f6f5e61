/**
 * Our client under the official MCP conformance suite (`@modelcontextprotocol/conformance client`).
 *
 *   node packages/conformance/dist/client.mjs <server-url>
 *
 * The runner passes the scenario in `MCP_CONFORMANCE_SCENARIO`, the protocol revision in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and scenario data in `MCP_CONFORMANCE_CONTEXT` (JSON). The client settles
 * the era with the library's own detection (`MCP_EFFECT_ERA=modern|legacy` insists on one), then does what a
 * plain application would: it lists what the server offers and uses it. Elicitations are accepted with the
 * schema's defaults, sampling answers with a fixed text, roots are empty.
 *
 * It always exits: 0 when every step worked, 1 otherwise (the reason on stderr), and after
 * `MCP_EFFECT_DEADLINE_MS` (default 25 s, below the runner's 30 s) no matter what.
 */
import { type McpAuth, McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import type { McpClientError, McpSchema } from "@mcp-effect/client"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"

type Json = McpSchema.JsonObject

interface ToolCall {
  readonly name: string
  readonly arguments?: Json
}

const log = (message: string) => Effect.sync(() => process.stderr.write(`[conformance-client] ${message}\n`))

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A value for a schema with no default: what a user filling a form would plausibly give. */
const sample = (schema: unknown): unknown => {
  if (!isObject(schema)) return "test"
  if ("default" in schema) return schema["default"]
  if (Array.isArray(schema["enum"]) && schema["enum"].length > 0) return schema["enum"][0]
  switch (schema["type"]) {
    case "integer":
    case "number":
      return 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
      return argumentsFor(schema)
    default:
      return "test"
  }
}

/** Arguments for a tool's `inputSchema`: every defaulted property, and a sample for each required one. */
const argumentsFor = (schema: unknown): Json => {
  if (!isObject(schema) || !isObject(schema["properties"])) return {}
  const required = Array.isArray(schema["required"]) ? schema["required"] : []
  const args: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(schema["properties"])) {
    if (isObject(property) && "default" in property) args[key] = property["default"]
    else if (required.includes(key)) args[key] = sample(property)
  }
  return args
}

type FormValue = string | number | boolean | ReadonlyArray<string>

const isFormValue = (value: unknown): value is FormValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ||
  (Array.isArray(value) && value.every((item) => typeof item === "string"))

/** The elicitation answer: accept, with the requested schema's defaults (and samples for required fields). */
const acceptWithDefaults = (params: Json | undefined) => {
  const schema = params?.["requestedSchema"]
  const content: Record<string, FormValue> = {}
  if (isObject(schema) && isObject(schema["properties"])) {
    const required = Array.isArray(schema["required"]) ? schema["required"] : []
    for (const [key, property] of Object.entries(schema["properties"])) {
      const value = isObject(property) && "default" in property
        ? property["default"]
        : required.includes(key)
        ? sample(property)
        : undefined
      if (isFormValue(value)) content[key] = value
    }
  }
  return { action: "accept" as const, content }
}

const parseContext = (): Record<string, unknown> => {
  const raw = process.env["MCP_CONFORMANCE_CONTEXT"]
  if (raw === undefined || raw === "") return {}
  try {
    const value: unknown = JSON.parse(raw)
    return isObject(value) ? value : {}
  } catch {
    return {}
  }
}

/** The Client ID Metadata Document URL the suite expects (auth/basic-cimd). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

/**
 * The browser's part of the authorization code flow: load the authorization URL and report where the
 * authorization server redirected (no user to ask: the suite's servers approve at once).
 */
const followAuthorization = async (authorizationUrl: URL): Promise<string> => {
  // Like a browser, try a GET that met a reset connection once more (the runner loads the machine heavily).
  const response = await fetch(authorizationUrl, { redirect: "manual" }).catch(() =>
    fetch(authorizationUrl, { redirect: "manual" })
  )
  const location = response.headers.get("location")
  await response.body?.cancel()
  if (location === null) throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`)
  return new URL(location, authorizationUrl).href
}

const text = (context: Record<string, unknown>, key: string): string | undefined =>
  typeof context[key] === "string" ? context[key] : undefined

/**
 * How the client authorizes, as an application would be configured: interactive by default; the credentials
 * the runner hands out (MCP_CONFORMANCE_CONTEXT) select a pre-registered client or a grant without a user.
 */
const authOptions = (scenario: string, context: Record<string, unknown>): McpAuth.AuthOptions => {
  const interactive: McpAuth.AuthOptions = {
    clientName: "mcp-effect-conformance",
    redirectUrl: "http://localhost:3000/callback",
    onAuthorize: followAuthorization,
    clientMetadataUrl: CLIENT_METADATA_URL
  }
  const clientId = text(context, "client_id")
  const clientSecret = text(context, "client_secret")
  const idToken = text(context, "idp_id_token")
  const idpTokenEndpoint = text(context, "idp_token_endpoint")
  const idpClientId = text(context, "idp_client_id")
  if (clientId !== undefined && idToken !== undefined && idpTokenEndpoint !== undefined && idpClientId !== undefined) {
    return {
      enterprise: {
        clientId,
        clientSecret,
        idToken,
        idpTokenEndpoint,
        idpClientId,
        idpIssuer: text(context, "idp_issuer")
      }
    }
  }
  const assertion = text(context, "valid_jwt")
  if (clientId !== undefined && assertion !== undefined) return { jwtBearer: { clientId, assertion } }
  const privateKey = text(context, "private_key_pem")
  if (clientId !== undefined && privateKey !== undefined) {
    return { clientCredentials: { clientId, privateKey, signingAlgorithm: text(context, "signing_algorithm") } }
  }
  if (clientId !== undefined && scenario.startsWith("auth/client-credentials")) {
    return { clientCredentials: { clientId, clientSecret } }
  }
  if (clientId !== undefined) {
    return { ...interactive, client: { clientId, clientSecret, issuer: text(context, "issuer") } }
  }
  return interactive
}

const toolCallsOf = (context: Record<string, unknown>): ReadonlyArray<ToolCall> | undefined => {
  const calls = context["toolCalls"]
  if (!Array.isArray(calls)) return undefined
  return calls.flatMap((call: unknown): Array<ToolCall> =>
    isObject(call) && typeof call["name"] === "string"
      ? [isObject(call["arguments"]) ? { name: call["name"], arguments: call["arguments"] } : { name: call["name"] }]
      : []
  )
}

/**
 * The skills scenarios (SEP-2640), as a host uses skills: list them (no file read: `no-prefetch` ends there),
 * then load each one, reading its other files only once its `SKILL.md` passed the checks. A skill that fails
 * them is rejected, its files never read.
 */
const runSkills = (scenario: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const skills = yield* client.listSkills()
    yield* log(`skills: ${skills.map((skill) => skill.name).join(", ") || "(none)"}`)
    if (scenario === "sep-2640-client-no-prefetch") return
    for (const skill of skills) {
      const loaded = yield* Effect.result(client.loadSkill(skill))
      if (loaded._tag === "Failure") {
        yield* log(`rejected skill ${skill.name}: ${loaded.failure.message}`)
        continue
      }
      for (const file of loaded.success.files) {
        const read = yield* Effect.result(client.readSkillFile(skill, file.uri))
        yield* log(read._tag === "Success" ? `read ${file.uri}` : `rejected ${file.uri}: ${read.failure.message}`)
      }
    }
  })

/** What the client does once connected, per scenario; the default uses everything the server lists. */
const run = (scenario: string, context: Record<string, unknown>) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const info = yield* client.info
    yield* log(`era ${info.era} at ${info.protocolVersion}; server ${info.serverInfo?.name ?? "(unnamed)"}`)
    const capabilities = info.capabilities
    if (scenario.startsWith("sep-2640-client-")) return yield* runSkills(scenario)

    const tools = capabilities.tools === undefined ? [] : yield* client.listTools()
    yield* log(`tools: ${tools.map((tool) => tool.name).join(", ") || "(none)"}`)

    if (scenario === "json-schema-ref-no-deref") return // listing is the whole test

    if (scenario === "json-schema-2020-12-preservation") {
      const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool")
      if (focal === undefined) return yield* Effect.fail(new Error("json_schema_2020_12_tool is not listed"))
      yield* client.callTool("json_schema_echo", { schema: focal.inputSchema })
      return
    }

    const planned = toolCallsOf(context) ??
      tools.map((tool): ToolCall => ({ name: tool.name, arguments: argumentsFor(tool.inputSchema) }))
    for (const call of planned) {
      const result = yield* client.callTool(call.name, call.arguments)
      yield* log(`called ${call.name}: ${result.isError === true ? "tool error" : "ok"}`)
    }

    if (capabilities.resources !== undefined) {
      for (const resource of yield* client.listResources()) {
        yield* client.readResource(resource.uri)
        yield* log(`read ${resource.uri}`)
      }
    }
    if (capabilities.prompts !== undefined) {
      for (const prompt of yield* client.listPrompts()) {
        const args: Record<string, string> = {}
        for (const argument of prompt.arguments ?? []) {
          if (argument.required === true) args[argument.name] = "test"
        }
        yield* client.getPrompt(prompt.name, args)
        yield* log(`got prompt ${prompt.name}`)
      }
    }
  })

const main = () => {
  const url = process.argv[2]
  if (url === undefined) {
    process.stderr.write("usage: client.mjs <server-url>\n")
    process.exit(2)
  }
  const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? "(none)"
  const revision = process.env["MCP_CONFORMANCE_PROTOCOL_VERSION"]
  const forced = process.env["MCP_EFFECT_ERA"]
  const era = forced === "modern" || forced === "legacy" ? forced : "auto"
  const deadline = Number(process.env["MCP_EFFECT_DEADLINE_MS"] ?? 25_000)
  const context = parseContext()
  // Whatever happens, the process ends.
  setTimeout(() => {
    process.stderr.write(`[conformance-client] deadline of ${deadline} ms reached\n`)
    process.exit(1)
  }, deadline).unref()

  // The one-call Node layer, as users get it: undici's dispatcher under the HTTP transport, OAuth through McpAuth.
  const layer = NodeMcpClient.layerHttp({
    url,
    auth: authOptions(scenario, context),
    clientName: "mcp-effect-conformance",
    era,
    skills: scenario.startsWith("sep-2640-"),
    // The runner starts every scenario (dozens of clients and servers) at once: on a 2-core machine an
    // answer can take many seconds. Over HTTP a probe timeout is an error, not an era signal, so a long
    // budget costs nothing; the process deadline above still bounds the run.
    probeTimeout: "60 seconds",
    requestTimeout: "60 seconds",
    onElicit: ({ params }) => Effect.succeed(acceptWithDefaults(params)),
    onSample: () =>
      Effect.succeed({
        role: "assistant" as const,
        content: { type: "text" as const, text: "This is a test response from the conformance client." },
        model: "conformance-test-model",
        stopReason: "endTurn"
      }),
    onListRoots: () => Effect.succeed({ roots: [] })
  })

  // Warnings and worse, in plain text on stderr (stdout is the runner's).
  const logging = Layer.mergeAll(
    Logger.layer([Logger.consolePretty({ colors: false })]),
    Layer.succeed(Logger.LogToStderr, true),
    Layer.succeed(References.MinimumLogLevel, "Warn")
  )
  const program = log(`scenario ${scenario}, revision ${revision ?? "(unset)"}, url ${url}`).pipe(
    Effect.andThen(run(scenario, context)),
    Effect.provide(layer),
    Effect.provide(logging)
  )

  Effect.runPromiseExit(program as Effect.Effect<void, McpClientError | Error>).then((exit) => {
    if (Exit.isSuccess(exit)) {
      process.stderr.write("[conformance-client] done\n")
      process.exit(0)
    }
    process.stderr.write(`[conformance-client] failed: ${Cause.pretty(exit.cause)}\n`)
    process.exit(1)
  })
}

main()
