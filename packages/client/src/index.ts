/**
 * The portable entry point, `@mcp-effect/client`: the client and everything around it, on any runtime Effect
 * runs on (browsers, Workers, Bun, Deno, Node). It imports no `node:` module. What needs Node (servers over
 * stdio, undici, configuration and token files, the loopback sign-in receiver) is `@mcp-effect/client/node`,
 * which re-exports everything here too.
 *
 * In the order a newcomer needs them: start (the client, its transports, the Promise face), connect and sign
 * in, policies (cache, pinning), typed calls (and calls a model makes), models (wire types, errors), testing.
 * Every module is a namespace; what a page does not use is left out of its bundle (`"sideEffects": []`).
 *
 * @since 0.1.0
 */

// -----------------------------------------------------------------------------
// Start: the client service and its layers, its transports, and the same client for Promise code.
// -----------------------------------------------------------------------------

/**
 * The MCP client service and its layers.
 *
 * @since 0.1.0
 */
export * as McpClient from "./McpClient.js"

/**
 * Transports: stdio, in-memory (and Streamable HTTP).
 *
 * @since 0.1.0
 */
export * as McpTransport from "./McpTransport.js"

/**
 * The Promise API: clients, the LLM bridge, local toolkits and registries.
 *
 * @since 0.1.0
 */
export * as McpPromise from "./McpPromise.js"

export {
  /**
   * `connectHttp` on the runtime's `fetch`, for every runtime (the Node entry's is on undici).
   *
   * @since 0.1.0
   */
  connectHttp
} from "./internal/promise/connect.js"

/**
 * The Promise client and its call options, at the top level.
 *
 * @since 0.2.0
 */
export type { PromiseCallOptions, PromiseClient } from "./McpPromise.js"
/**
 * The Promise forms of a bridge and a registry, and of any Effect service (`Promised`).
 *
 * @since 0.2.0
 */
export type { PromiseBridge, PromiseRegistry, Promised } from "./McpPromise.js"

// -----------------------------------------------------------------------------
// Connect and sign in: which era a server speaks, what it is before connecting, OAuth in any runtime or a page.
// -----------------------------------------------------------------------------

/**
 * Works out which protocol era a server speaks.
 *
 * @since 0.1.0
 */
export * as EraResolver from "./EraResolver.js"

/**
 * Server Cards: what a server is (name, version, remotes, revisions) before connecting; advisory only.
 *
 * @since 0.3.0
 */
export * as McpDiscovery from "./McpDiscovery.js"

/**
 * OAuth authorization for Streamable HTTP servers.
 *
 * @since 0.1.0
 */
export * as McpAuth from "./McpAuth.js"

/**
 * A person's sign-in from a web page (a popup and its redirect page) and tokens kept where the page says.
 *
 * @since 0.3.0
 */
export * as BrowserMcpAuth from "./BrowserMcpAuth.js"

// -----------------------------------------------------------------------------
// Policies: what the client keeps and lets through (results, tool definitions, a model's calls, servers' asks).
// -----------------------------------------------------------------------------

/**
 * Caches results as far as the server's `ttlMs` permits.
 *
 * @since 0.1.0
 */
export * as ResultCache from "./ResultCache.js"

/**
 * Tool pinning: each tool's definition pinned at first sight, a changed one held back until approved.
 *
 * @since 0.3.0
 */
export * as McpPinning from "./McpPinning.js"

/**
 * How a batch of model tool calls is run: serial, or widened for read-only idempotent tools.
 *
 * @since 0.1.0
 */
export * as ToolScheduler from "./ToolScheduler.js"

/**
 * Serves what a server asks of the client through the caller's hooks.
 *
 * @since 0.1.0
 */
export * as InputFulfiller from "./InputFulfiller.js"

// -----------------------------------------------------------------------------
// Typed calls: tools typed at run time or by generated code, tools for a model, toolkits, skills, MCP Apps.
// -----------------------------------------------------------------------------

/**
 * A tool's `inputSchema` / `outputSchema` (JSON Schema 2020-12) as an Effect `Schema`, at run time.
 *
 * @since 0.3.0
 */
export * as McpToolSchema from "./McpToolSchema.js"

/**
 * Typed clients generated from a server's tools (what `mcp-effect types` writes).
 *
 * @since 0.3.0
 */
export * as McpCodegen from "./McpCodegen.js"

/**
 * Feeding an LLM: a server's tools as function declarations, a model's tool calls run and answered.
 *
 * @since 0.1.0
 */
export * as LlmBridge from "./LlmBridge.js"

/**
 * The bridge's tools, calls and results at the top level.
 *
 * @since 0.2.0
 */
export type { ErrorKind, FunctionTool, ToolCall, ToolResult } from "./LlmBridge.js"

/**
 * The bridge's tools and answers in OpenAI's and Anthropic's own shapes (`openAiTools`, `openAiToolMessages`,
 * `anthropicTools`, `anthropicToolCalls`, `anthropicToolResults`). The Vercel AI SDK adapter is
 * `@mcp-effect/client/AiSdk` (`mcpToolsForAiSdk`), not in the index: it imports `ai`, an optional peer.
 *
 * @since 0.2.0
 */
export * as LlmProviders from "./LlmProviders.js"

/**
 * Local toolkits: in-process tools behind the same bridge as a remote server.
 *
 * @since 0.1.0
 */
export * as Toolkit from "./Toolkit.js"

/**
 * Many clients and toolkits behind one prefix namespace.
 *
 * @since 0.1.0
 */
export * as ToolRegistry from "./ToolRegistry.js"

/**
 * Agent Skills served over MCP (the `io.modelcontextprotocol/skills` extension): models, checks and errors.
 *
 * @since 0.1.0
 */
export * as McpSkills from "./McpSkills.js"

/**
 * Skills for a model: a catalogue for the system prompt, and `load_skill` / `read_skill_file` tools.
 *
 * @since 0.1.0
 */
export * as LlmSkills from "./LlmSkills.js"

/**
 * MCP Apps (`io.modelcontextprotocol/ui`), the host's side: find and read a tool's App, its sandbox policy, and
 * the `ui/*` bridge over a port, with the spec's security rules built in.
 *
 * @since 0.3.0
 */
export * as McpApps from "./McpApps.js"

/**
 * MCP Apps in a page: the App rendered in the spec's double iframe, its bridge over `postMessage`.
 *
 * @since 0.3.0
 */
export * as BrowserMcpApps from "./BrowserMcpApps.js"

export {
  /**
   * Renders a tool's MCP App in a page element, from Promise code (`McpPromise.mountApp`).
   *
   * @since 0.3.0
   */
  mountApp
} from "./McpPromise.js"

// -----------------------------------------------------------------------------
// Models: the wire types of both eras, the results at the top level, the client's errors and diagnostics.
// -----------------------------------------------------------------------------

/**
 * Wire types of both protocol eras.
 *
 * @since 0.1.0
 */
export * as McpSchema from "./McpSchema.js"

/**
 * The types `callTool`, `listTools`, `readResource`, `getPrompt` (and the other lists) give, at the top level
 * where a caller looks first; `McpSchema` has them too, with their schemas.
 *
 * @since 0.2.0
 */
export type {
  CallToolResult,
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Tool
} from "./McpSchema.js"

/**
 * The client's tagged errors.
 *
 * @since 0.1.0
 */
export * as McpError from "./McpError.js"

export {
  /**
   * @since 0.1.0
   */
  McpClosedError,
  /**
   * @since 0.1.0
   */
  McpInputLoopExceededError,
  /**
   * @since 0.1.0
   */
  McpInputRefusedError,
  /**
   * @since 0.1.0
   */
  McpInvalidResponseError,
  /**
   * @since 0.1.0
   */
  McpPaginationLimitError,
  /**
   * @since 0.1.0
   */
  McpProbeStalledError,
  /**
   * @since 0.3.0
   */
  McpToolQuarantinedError,
  /**
   * @since 0.3.0
   */
  McpToolResultError,
  /**
   * @since 0.1.0
   */
  McpProtocolError,
  /**
   * @since 0.1.0
   */
  McpServerGoneError,
  /**
   * @since 0.1.0
   */
  McpTimeoutError,
  /**
   * @since 0.1.0
   */
  McpTransportError,
  /**
   * @since 0.1.0
   */
  McpUnsupportedVersionError
} from "./McpError.js"

export type {
  /**
   * @since 0.1.0
   */
  McpClientError,
  /**
   * @since 0.3.0
   */
  McpRequestError
} from "./McpError.js"

export {
  /**
   * @since 0.1.0
   */
  McpAuthError
} from "./McpAuthError.js"

/**
 * Things the client noticed that failed no call.
 *
 * @since 0.1.0
 */
export * as McpDiagnostic from "./McpDiagnostic.js"

// -----------------------------------------------------------------------------
// Testing: an in-memory MCP server declared in a few lines, and real sessions recorded and replayed.
// -----------------------------------------------------------------------------

/**
 * A testing kit: an in-memory MCP server declared in a few lines, as a layer.
 *
 * @since 0.1.0
 */
export * as McpTestServer from "./McpTestServer.js"

/**
 * Record, replay, verify: a real MCP session kept as a file that is a test fixture, a bug report and an audit
 * trail.
 *
 * @since 0.3.0
 */
export * as McpCassette from "./McpCassette.js"
