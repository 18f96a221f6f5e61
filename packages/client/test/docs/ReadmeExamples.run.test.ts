/**
 * The READMEs' examples run: every ```ts block of every README (and of CHANGELOG.md) is run here (as a program,
 * or as a web page in Chromium), or run by a `.readme.test.ts` of its own (a vitest test, verbatim: see
 * `ReadmeExamples.test.ts`), or listed with the reason it cannot run on this machine. A block that is none of
 * these fails the test, so a new example cannot be left out silently.
 *
 * A run writes the block, as written but for the substitutions listed with it (and, for a block that only
 * declares a program, an appended line that runs it), to a temporary `.ts` file inside the repository (so that
 * `@mcp-effect/client` resolves to this workspace's build), runs it with the repository's `tsx` on its Node,
 * with a home of its own (`HOME` is a temporary folder) and a time bound, and asserts: exit code 0, what the
 * example prints that proves it did its job, and that no process it started (found by a marker in their
 * environment, which every descendant inherits) outlives it. A block for a web page is bundled (esbuild) into a
 * page of the page host and opened in headless Chromium, where its proof is waited for. The servers the
 * examples talk to are the tests' own (`packages/test-servers`, the official SDK's, server-everything,
 * oidc-provider, redis-server), started once for the file; at most two runs go at a time (two cores).
 */
import { followAuthorization, type OAuthProtected, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import { build } from "esbuild"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { eventually, launch } from "../fixtures/httpServer.js"
import { type LegacyTaskServer, startLegacyTaskServer } from "../fixtures/legacyTaskServer.js"
import { startStdioRelay, type StdioRelay } from "../fixtures/stdioRelay.js"
import { type RunningServer, startListening } from "../runtimes/fixtures/project.js"
import { CLIENT_SECRET, protectedMcp, scriptedAs } from "../fixtures/oauthScripted.js"
import { type RedisServer, startRedis } from "../fixtures/redisServer.js"
import { examplesOf, readmesOf, root } from "./readmes.js"

const node = fs.existsSync(path.join(root, "node_modules/.bin/node")) ? path.join(root, "node_modules/.bin/node") : process.execPath
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs")
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")
const testServers = path.join(root, "packages/test-servers/dist")
const pageHost = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/page-host")
const vanilla = path.join(root, "node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"
/** A run's time bound: starting tsx and a server or two takes a few seconds; this is many times that. */
const RUN_LIMIT_MS = 60_000

/** What the runs share: servers started once for the file, stopped at its end. */
interface Context {
  /** A plain (unprotected) Streamable HTTP MCP server: `packages/test-servers`' official one (`echo {text}`). */
  readonly httpUrl: string
  /** An OAuth-protected one with a real authorization server that approves the user at once (`whoami`). */
  readonly oauth: OAuthProtected
  /** A scripted authorization server that grants client credentials, and the MCP server it protects. */
  readonly machineUrl: string
  readonly redis: RedisServer | undefined
  /** A legacy server whose tool `long` runs as a task that outlives its connection (the fleet task tests'). */
  readonly taskServer: LegacyTaskServer
  readonly fleetKey: string
  /** The page host (this file's pages; `apps/mcp` relays to the official `server-basic-vanillajs`, with `get-time`). */
  readonly pageOrigin: string
  /**
   * An OAuth-protected server like `oauth`, that also lets pages of the page host call it (CORS) and takes a
   * Client ID Metadata Document as a client.
   */
  readonly pageOauth: OAuthProtected
  /** A browser run's own page (its URL on the page host); "" for a program. */
  readonly page: string
  /** The MCP Apps sandbox page, served from another origin. */
  readonly sandboxUrl: string
  /** The run's own temporary folder (its HOME). */
  readonly home: string
}

type Text = string | ((context: Context) => string)

interface Run {
  /** Each `[from, to]` must be in the block; `to` may depend on the servers started here. */
  readonly swaps: ReadonlyArray<readonly [string, Text]>
  /** Code appended to a block that declares a program without running it: the run a reader would write. */
  readonly append?: Text
  readonly env?: (context: Context) => Record<string, string>
  /** Runs first; what it returns is added to the example's environment. */
  readonly prepare?: (context: Context) => Promise<Record<string, string>>
  /** Plays the user while the example runs (e.g. signs in through the URL it prints). */
  readonly onStdout?: (stdout: string, context: Context) => void
  /** What the example must print (stdout), proof that it did its job. */
  readonly prints: RegExp
  /** Further checks once it has exited (files it wrote). */
  readonly after?: (context: Context) => void
  /** A reason the machine cannot run it now (e.g. no redis-server): the run is skipped with this reason. */
  readonly needs?: (context: Context) => string | undefined
}

/** A block for a web page: bundled (esbuild) into a page of the page host and opened in headless Chromium. */
interface BrowserRun {
  readonly swaps: ReadonlyArray<readonly [string, Text]>
  readonly append?: Text
  /** Files the page host serves beside the page (by name). */
  readonly files?: (context: Context) => Record<string, string>
  /** Waits for (and asserts) the proof on the page, given what the page logged (each console call, as JSON). */
  readonly check: (page: Page, logged: ReadonlyArray<string>) => Promise<void>
}

/** A block, known by its README and a line of its text found in no other block. */
interface Entry {
  readonly readme: string
  readonly marker: string
  readonly run?: Run
  readonly browser?: BrowserRun
  /**
   * A vitest test, run as written by this test file of `docs/` (`ReadmeExamples.test.ts` checks that its text is
   * the block's, but for the substitutions it lists).
   */
  readonly ownTest?: string
  /** Why the block is not run here. */
  readonly notRun?: string
}

/** The server `npx` would fetch, as installed: run by the workspace's Node. */
const npxEverything: readonly [string, Text] = [
  `command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"]`,
  `command: ${JSON.stringify(node)}, args: [${JSON.stringify(everything)}]`
]

/**
 * A task started by another worker of the fleet (`fixtures/fleetTaskWorker.ts`, the fleet task tests' worker), as
 * user-42 with the file's fleet key: it prints the task's id once the fleet recorded it, and is killed there.
 */
const startedTask = (context: Context): Promise<Record<string, string>> =>
  new Promise((resolve, reject) => {
    const child = spawn(node, ["--import", "tsx", path.join(import.meta.dirname, "../fixtures/fleetTaskWorker.ts")], {
      cwd: root,
      env: {
        ...process.env,
        TASK_MCP_URL: context.taskServer.url,
        TASK_MODE: "call",
        TASK_TEXT: "left behind",
        FLEET_SUBJECT: "user-42",
        FLEET_REDIS_URL: context.redis?.url ?? "",
        FLEET_KEY: context.fleetKey
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let taskId: string | undefined
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)))
    const limit = setTimeout(() => child.kill("SIGKILL"), RUN_LIMIT_MS)
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const created = /\{"created":"([^"]+)"/.exec(stdout)?.[1]
      if (created === undefined || taskId !== undefined) return
      taskId = created
      child.kill("SIGKILL")
    })
    child.once("exit", (code) => {
      clearTimeout(limit)
      return taskId === undefined
        ? reject(new Error(`the first worker exited (${code}) before its task: ${stderr}`))
        : resolve({ TASK_ID: taskId })
    })
  })

/** The sign-in URLs already followed (the example prints one; stdout arrives in chunks). */
const signingIn = new Set<string>()
const needsRedis = (context: Context) => context.redis === undefined ? "no redis-server on this machine" : undefined

const entries: ReadonlyArray<Entry> = [
  {
    readme: "README.md",
    marker: "const era = yield* client.era",
    run: {
      swaps: [[
        `command: "npx",\n    args: ["-y", "@modelcontextprotocol/server-everything"],`,
        `command: ${JSON.stringify(node)},\n    args: [${JSON.stringify(everything)}],`
      ]],
      // The whole answer (console.dir without a depth limit): the era, the tools, and the echo's one text block.
      prints: /era: '(modern|legacy)'[\s\S]*'echo'[\s\S]*result: \{[\s\S]*text: 'Echo: hi'/
    }
  },
  {
    readme: "README.md",
    marker: `const client = await connectStdio({ command: "my-mcp-server", args: ["--stdio"]`,
    run: {
      swaps: [
        [`command: "my-mcp-server", args: ["--stdio"]`, `command: ${JSON.stringify(node)}, args: [${JSON.stringify(everything)}]`],
        // server-everything has no `search`; its `echo` takes `message`.
        [`callTool("search", { query: "effect" })`, `callTool("echo", { message: "effect" })`]
      ],
      prints: /(modern|legacy) mcp-servers\/everything[\s\S]*\necho [\s\S]*Echo: effect/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "// The portable transport: any runtime that provides a ChildProcessSpawner.",
    run: {
      swaps: [[
        `McpTransport.layerStdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })`,
        `McpTransport.layerStdio({ command: ${JSON.stringify(node)}, args: [${JSON.stringify(everything)}] })`
      ]],
      prints: /'echo'[\s\S]*'get-sum'/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "const token = process.env[\"MCP_TOKEN\"]",
    run: {
      swaps: [[`url: "https://example.com/mcp"`, (c) => `url: ${JSON.stringify(c.httpUrl)}`]],
      append: `\nimport { Effect } from "effect"\n` +
        `Effect.runPromise(McpClient.listTools().pipe(Effect.provide(client))).then((tools) => console.log(tools.map((tool) => tool.name)))\n`,
      env: () => ({ MCP_TOKEN: "a-token" }),
      prints: /'echo'/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "const Weather = Schema.Struct(",
    run: {
      swaps: [npxEverything],
      append: `\nEffect.runPromise(program).then(console.log)\n`,
      prints: /^[A-Za-z ]+, -?\d+(\.\d+)? °C$/m
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "pinning: { store: NodeMcpPinning.fileStore(",
    run: {
      swaps: [
        [`command: "my-mcp-server",`, `command: ${JSON.stringify(node)}, args: [${JSON.stringify(everything)}],`],
        ["`${process.env.HOME}/.config/my-agent/pins.json`", (c) => JSON.stringify(path.join(c.home, ".config/my-agent/pins.json"))]
      ],
      append: `\nconsole.log((await client.listTools()).map((tool) => tool.name))\nawait client.close()\n`,
      prints: /'echo'/,
      after: (c) => assert.isTrue(fs.existsSync(path.join(c.home, ".config/my-agent/pins.json")), "the pin file was written")
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "const receiver = await NodeMcpAuth.loopbackReceiver(",
    run: {
      swaps: [
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.oauth.mcpUrl)}`],
        ["`${process.env.HOME}/.config/my-tool/tokens.json`", (c) => JSON.stringify(path.join(c.home, ".config/my-tool/tokens.json"))],
        // The protected server's one tool.
        [`callTool("search", { query: "effect" })`, `callTool("whoami", {})`]
      ],
      // The user opens the printed URL and signs in: the authorization server approves at once.
      onStdout: (stdout) => {
        const url = /Sign in: (\S+)/.exec(stdout)?.[1]
        if (url === undefined || signingIn.has(url)) return
        signingIn.add(url)
        const redirect = new URL(url).searchParams.get("redirect_uri") ?? ""
        void followAuthorization(new URL(url), redirect).then((back) => fetch(back)).then((r) => r.body?.cancel())
      },
      prints: /hello demo-user/,
      after: (c) => {
        const stat = fs.statSync(path.join(c.home, ".config/my-tool/tokens.json"))
        assert.strictEqual(stat.mode & 0o777, 0o600, "the token file is private")
      }
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "auth: { clientCredentials: { clientId: \"reporting-job\"",
    run: {
      swaps: [[`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.machineUrl)}`]],
      append: `\nconsole.log((await client.listTools()).map((tool) => tool.name))\nawait client.close()\n`,
      env: () => ({ MCP_CLIENT_SECRET: CLIENT_SECRET }),
      prints: /'echo'/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: `const client = await connectHttp({ url: "https://mcp.example.com/mcp" })\nconsole.log(await client.era()`,
    run: {
      swaps: [
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.httpUrl)}`],
        // The official SDK's test server's `echo` takes `text`.
        [`callTool("echo", { message: "hi" })`, `callTool("echo", { text: "hi" })`]
      ],
      prints: /(modern|legacy) \[[\s\S]*'echo'[\s\S]*text: 'hi'/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "if (!BrowserMcpAuth.completeSignIn()) {",
    browser: {
      // The headless shell has no popup blocker, so the sign-in starts as the page loads, without the click a
      // browser with one needs; the authorization server approves the user at once.
      swaps: [
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.pageOauth.mcpUrl)}`],
        [`clientMetadataUrl: "https://app.example.com/oauth/client.json"`, (c) => `clientMetadataUrl: ${JSON.stringify(`${c.pageOrigin}client-${path.basename(c.page)}.json`)}`],
        [`redirectUrl: "https://app.example.com/"`, (c) => `redirectUrl: ${JSON.stringify(c.page)}`]
      ],
      // The page's Client ID Metadata Document: this very page is its redirect URL.
      files: (c) => ({
        [`client-${path.basename(c.page)}.json`]: JSON.stringify({
          client_id: `${c.pageOrigin}client-${path.basename(c.page)}.json`,
          client_name: "README example",
          redirect_uris: [c.page],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
          application_type: "web"
        })
      }),
      check: async (page, logged) => {
        await Effect.runPromise(eventually(() => logged.includes(JSON.stringify([["whoami"]])), "the printed tool names", 30_000))
        const stored = await page.evaluate(() => Object.keys(localStorage))
        assert.isAbove(stored.length, 0, "the tokens are kept in localStorage")
      }
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "const app = await mountApp(container, {",
    browser: {
      swaps: [
        ["declare const container: BrowserMcpApps.Container // e.g. document.getElementById(\"app\")", "const container = document.getElementById(\"app\") as BrowserMcpApps.Container"],
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(`${c.pageOrigin}apps/mcp`)}`],
        [`sandboxUrl: "https://sandbox.example.com/apps-sandbox.html"`, (c) => `sandboxUrl: ${JSON.stringify(c.sandboxUrl)}`]
      ],
      append: `\nObject.assign(globalThis, { exampleDone: true })\n`,
      check: async (page, logged) => {
        await page.waitForFunction(() => "exampleDone" in globalThis, undefined, { timeout: 30_000 })
        // `app.result`, printed: the tool's result the App was given (console arguments arrive a moment later).
        const result = () => logged.some((line) => /^\[\{"content":.*"structuredContent":\{"time":"[^"]+"\}/.test(line))
        await Effect.runPromise(eventually(result, "the printed app.result"))
        assert.strictEqual(await page.locator("#app iframe").count(), 0, "close() removed the frame")
      }
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "const app = yield* BrowserMcpApps.mount(container, {",
    browser: {
      swaps: [
        ["declare const container: BrowserMcpApps.Container", "const container = document.getElementById(\"app\") as BrowserMcpApps.Container"],
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(`${c.pageOrigin}apps/mcp`)}`],
        [`sandboxUrl: "https://sandbox.example.com/apps-sandbox.html"`, (c) => `sandboxUrl: ${JSON.stringify(c.sandboxUrl)}`]
      ],
      // The block declares the program; the page runs it (it lives until the page goes: Effect.never).
      append: `\nEffect.runFork(program)\n`,
      // The App, inside the sandbox's frame, shows the time the tool answered.
      check: async (page) => {
        const app = page.frameLocator("#app iframe").frameLocator("iframe")
        await app.locator("#server-time").filter({ hasText: /\d/ }).waitFor({ timeout: 30_000 })
      }
    }
  },
  {
    readme: "packages/client/README.md",
    marker: `url: "redis://redis.internal:6379",`,
    run: {
      needs: needsRedis,
      swaps: [
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.httpUrl)}`],
        [`url: "redis://redis.internal:6379"`, (c) => `url: ${JSON.stringify(c.redis?.url)}`],
        // The official SDK's test server has no `search`; its `echo` takes `text`.
        [`callTool("search", { query: tools[0]?.name ?? "" })`, `callTool("echo", { text: tools[0]?.name ?? "" })`]
      ],
      append: `\nEffect.runPromise(program).then((result) => console.log(JSON.stringify(result)))\n`,
      env: (c) => ({ MCP_FLEET_KEY: c.fleetKey }),
      prints: /"content":\[\{"type":"text","text":"echo"\}\]/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "export const worker = async (userId: string, tokenKey: string) => {",
    run: {
      needs: needsRedis,
      swaps: [
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.httpUrl)}`],
        [`url: "redis://127.0.0.1:6379"`, (c) => `url: ${JSON.stringify(c.redis?.url)}`]
      ],
      append: `\nconsole.log((await worker("user-42", process.env["MCP_FLEET_KEY"] ?? "")).map((tool) => tool.name))\n`,
      env: (c) => ({ MCP_FLEET_KEY: c.fleetKey }),
      prints: /'echo'/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "return await client.resumeTask(taskId)",
    run: {
      needs: needsRedis,
      // Another worker (the fleet tests' own) started the task `long` on a legacy task server and died.
      prepare: startedTask,
      swaps: [
        [`url: "https://mcp.example.com/mcp"`, (c) => `url: ${JSON.stringify(c.taskServer.url)}`],
        [`url: "redis://127.0.0.1:6379"`, (c) => `url: ${JSON.stringify(c.redis?.url)}`]
      ],
      append: `\nconsole.log(JSON.stringify(await resume("user-42", process.env["MCP_FLEET_KEY"] ?? "", process.env["TASK_ID"] ?? "")))\n`,
      env: (c) => ({ MCP_FLEET_KEY: c.fleetKey }),
      prints: /"content":\[\{"type":"text","text":"[^"]*left behind[^"]*"\}\]/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: "const skills = yield* client.listSkills()",
    run: {
      swaps: [],
      // The skills of `packages/test-servers` (the official SDK's SkillsExtension).
      append: `\nimport { NodeMcpClient } from "@mcp-effect/client/node"\n` +
        `program.pipe(Effect.provide(NodeMcpClient.layerStdio({ command: ${JSON.stringify(node)}, args: [${
          JSON.stringify(path.join(testServers, "skills.js"))
        }, "--impl", "official"] })), Effect.runPromise).then((result) => console.log(JSON.stringify(result)))\n`,
      prints: /"instructions":"[^"]+"[\s\S]*"systemPrompt":"[^"]*pdf-processing/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: `Effect.withSpan("my-agent-step"),`,
    run: { swaps: [], prints: /text: 'hi'/ }
  },
  {
    readme: "packages/client/README.md",
    marker: "const viaStdio = NodeMcpClient.layerStdio(",
    run: { swaps: [], prints: /\[\s*\[[\s\S]*'echo'[\s\S]*\],\s*\[[\s\S]*'echo'[\s\S]*\]\s*\]/ }
  },
  {
    readme: "packages/client/README.md",
    marker: "const tools = yield* bridge.toolsForLlm()",
    run: { swaps: [], prints: /content: '3'/ }
  },
  {
    readme: "packages/client/README.md",
    marker: "const scheduler = yield* ToolScheduler.ToolScheduler",
    run: { swaps: [], prints: /mode: 'concurrent'[\s\S]*answers: \[ 'A', 'B' \]/ }
  },
  {
    readme: "packages/client/README.md",
    marker: "const bridge = yield* Toolkit.bridge(Toolkit.make(add))",
    run: { swaps: [], prints: /tool_call_id: '1'[\s\S]*content: '5'/ }
  },
  {
    readme: "packages/client/README.md",
    marker: "const registry = yield* ToolRegistry.make()",
    run: { swaps: [], prints: /'web__search', 'local__now'[\s\S]*found effect[\s\S]*12:00/ }
  },
  {
    readme: "packages/client/README.md",
    marker: "export const promiseExample = async () => {",
    run: {
      swaps: [],
      append: `\npromiseExample().then((answer) => console.log(JSON.stringify(answer)))\n`,
      prints: /"replyWithoutCalls":\[\][\s\S]*"content":"hi"[\s\S]*"content":"HI"/
    }
  },
  {
    readme: "packages/client/README.md",
    marker: `it.effect("a fake server that ignores server/discover fails loudly"`,
    ownTest: "McpTransport.readme.test.ts"
  },
  {
    readme: "packages/client/README.md",
    marker: `describe("deploy", () => {`,
    ownTest: "McpTestServer.readme.test.ts"
  },
  {
    readme: "packages/client/README.md",
    marker: `it.effect("get-sum, answered from the recording"`,
    ownTest: "McpCassette.readme.test.ts"
  },
  {
    readme: "packages/ai/README.md",
    marker: "const toolkit = yield* McpToolkit.toolkit(client, { prefix: \"everything__\" })",
    run: {
      swaps: [npxEverything],
      // "A scripted one in tests": a model that asks for get-sum, then says what the tool answered.
      append: `
import { Response } from "effect/ai"
import { Layer, Stream } from "effect"
const scripted = Layer.effect(LanguageModel.LanguageModel, LanguageModel.make({
  generateText: (options) => Effect.sync((): Array<Response.PartEncoded> => {
    const answered = options.prompt.content.some((message) => message.role === "tool")
    const name = options.tools.find((tool) => tool.name.startsWith("everything__get-sum"))?.name ?? "none"
    return answered ? [{ type: "text", text: "done" }]
      : [Response.makePart("tool-call", { id: "1", name, params: { a: 2, b: 3 }, providerExecuted: false })]
  }),
  streamText: () => Stream.empty
}))
main(scripted).then((lines) => console.log(JSON.stringify(lines)))
`,
      prints: /everything__get-sum[^"]*: [^"]*5/
    }
  }
]

/** The block each entry names: exactly one must carry its marker. */
const blocks = readmesOf("").flatMap((readme) =>
  examplesOf(fs.readFileSync(path.join(root, readme), "utf8")).map((example) => ({ readme, ...example }))
)

/** Processes (other than this one) whose environment carries `marker`: what a run left behind. */
const survivors = (marker: string): ReadonlyArray<string> =>
  fs.readdirSync("/proc").filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid).flatMap((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, "latin1").includes(marker)
        ? [`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ")}`]
        : []
    } catch {
      return []
    }
  })

/** At most two runs at a time (the machine has two cores). */
let running = 0
const waiting: Array<() => void> = []
const slot = async <A>(f: () => Promise<A>): Promise<A> => {
  while (running >= 2) await new Promise<void>((resolve) => waiting.push(resolve))
  running++
  try {
    return await f()
  } finally {
    running--
    waiting.shift()?.()
  }
}

/** The end of the last page's run. */
let pageTurn: Promise<void> = Promise.resolve()

interface Outcome {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly left: ReadonlyArray<string>
}

const execute = (file: string, run: Run, context: Context, prepared: Record<string, string>): Promise<Outcome> =>
  new Promise((resolve) => {
    const id = randomUUID()
    const child = spawn(node, [tsx, file], {
      cwd: path.dirname(file),
      env: { ...process.env, HOME: context.home, README_EXAMPLE_RUN: id, ...run.env?.(context), ...prepared },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      run.onStdout?.(stdout, context)
    })
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)))
    const limit = setTimeout(() => child.kill("SIGKILL"), RUN_LIMIT_MS)
    child.once("exit", (code, signal) => {
      clearTimeout(limit)
      // Looked for at once: what the example started must be gone when it has exited (a zombie has no environment).
      resolve({ code, signal, stdout, stderr, left: survivors(`README_EXAMPLE_RUN=${id}`) })
    })
  })

/** Bundles the program into a page of the page host, opens it in Chromium, runs `check`; the page is closed after. */
const executeInPage = async (file: string, run: BrowserRun, context: Context): Promise<ReadonlyArray<string>> => {
  if (browser === undefined) throw new Error("no browser")
  const name = path.basename(file, ".ts")
  for (const [file, text] of Object.entries(run.files?.(context) ?? {})) fs.writeFileSync(path.join(pages, file), text)
  await build({ entryPoints: [file], outfile: path.join(pages, `${name}.js`), bundle: true, platform: "browser", format: "esm", logLevel: "silent" })
  fs.writeFileSync(
    path.join(pages, `${name}.html`),
    `<!doctype html><meta charset="utf-8"><title>${name}</title><div id="app"></div><script type="module" src="./${name}.js"></script>\n`
  )
  const page = await browser.newPage()
  const logged: Array<string> = []
  const errors: Array<string> = []
  page.on("console", (message) => {
    void Promise.all(message.args().map((arg) => arg.jsonValue())).then((values) => logged.push(JSON.stringify(values)), () => undefined)
  })
  page.on("pageerror", (error) => errors.push(error.message))
  try {
    await page.goto(context.page)
    await run.check(page, logged)
    assert.deepStrictEqual(errors, [], "nothing unhandled on the page")
    return logged
  } finally {
    await page.close()
  }
}

const textOf = (text: Text, context: Context) => typeof text === "string" ? text : text(context)

/** The block as the run writes it: each substitution must find its text. */
const programOf = (code: string, run: Pick<Run, "swaps" | "append">, context: Context): string => {
  const swapped = run.swaps.reduce((program, [from, to]) => {
    assert.include(program, from, `the block no longer has ${JSON.stringify(from)}`)
    return program.replace(from, textOf(to, context))
  }, code)
  return run.append === undefined ? swapped : swapped + textOf(run.append, context)
}

const entryBlock = (entry: Entry) => {
  const found = blocks.filter((block) => block.readme === entry.readme && block.code.includes(entry.marker))
  assert.strictEqual(found.length, 1, `${entry.readme}: ${found.length} blocks carry ${JSON.stringify(entry.marker)}`)
  return found[0] ?? { readme: entry.readme, line: 0, code: "" }
}

let dir = ""
/** The page host's folder (outside the repository's walk: hidden), with the sandbox in its own. */
let pages = ""
let browser: Browser | undefined
let relay: StdioRelay | undefined
const hosts: Array<RunningServer> = []
let shared: Omit<Context, "home" | "page"> | undefined
const scope = Effect.runSync(Scope.make())

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(root, ".readme-run-"))
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
  pages = path.join(dir, "pages")
  const sandboxDir = path.join(dir, "sandbox")
  fs.mkdirSync(pages)
  fs.mkdirSync(sandboxDir)
  fs.copyFileSync(path.join(import.meta.dirname, "../../apps-sandbox.html"), path.join(sandboxDir, "apps-sandbox.html"))
  const [httpUrl, machineUrl, oauth, redis, appsRelay, chromiumBrowser] = await Promise.all([
    Effect.runPromise(Scope.provide(launch(node, [path.join(testServers, "official.js"), "--http"]), scope)),
    Effect.runPromise(Scope.provide(Effect.flatMap(scriptedAs, (as) => Effect.map(protectedMcp(as), (mcp) => mcp.url)), scope)),
    startOAuthProtected(),
    startRedis(),
    startStdioRelay(node, [vanilla, "--stdio"]),
    chromium.launch({ executablePath: CHROMIUM })
  ])
  relay = appsRelay
  browser = chromiumBrowser
  const [pageHosted, sandbox] = await Promise.all([
    startListening(pageHost, ["--root", pages, "--upstream", `apps=${appsRelay.url}`]),
    startListening(pageHost, ["--root", sandboxDir])
  ])
  hosts.push(pageHosted, sandbox)
  const taskServer = await startLegacyTaskServer({ taskMs: 2000 })
  const pageOauth = await startOAuthProtected({ cors: { origin: new URL(pageHosted.url).origin }, clientMetadataDocuments: true })
  shared = {
    taskServer,
    pageOauth,
    httpUrl,
    machineUrl,
    oauth,
    redis,
    fleetKey: randomBytes(32).toString("base64"),
    pageOrigin: pageHosted.url,
    // Another port is another origin, as the sandbox must be.
    sandboxUrl: `${sandbox.url}apps-sandbox.html`
  }
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all([
    Effect.runPromise(Scope.close(scope, Exit.void)),
    shared?.oauth.close(),
    shared?.pageOauth.close(),
    shared?.taskServer.close(),
    shared?.redis?.stop(),
    relay?.stop(),
    ...hosts.map((host) => host.stop())
  ])
  if (dir !== "") fs.rmSync(dir, { recursive: true, force: true })
})

describe("README examples, run", () => {
  it("every block is run here, run by a test of its own, or listed with the reason it is not run", () => {
    const claimed = new Set(entries.map((entry) => entryBlock(entry)))
    const unclaimed = blocks.filter((block) => !claimed.has(block)).map((block) => `${block.readme}:${block.line}`)
    assert.deepStrictEqual(unclaimed, [], "a README example that is neither run nor listed with a reason")
    for (const entry of entries) {
      const ways = [entry.run, entry.browser, entry.ownTest, entry.notRun].filter((way) => way !== undefined)
      assert.strictEqual(ways.length, 1, `${entry.marker}: run, run in a page, run by its own test, or not run (with a reason)`)
      if (entry.ownTest !== undefined) assert.isTrue(fs.existsSync(path.join(import.meta.dirname, entry.ownTest)), entry.ownTest)
    }
  })

  for (const entry of entries) {
    const run = entry.browser
    if (run === undefined) continue
    it.concurrent(`${entry.readme} (Chromium): ${entry.marker}`, async () => {
      if (shared === undefined) throw new Error("the servers did not start")
      const block = entryBlock(entry)
      const name = `${entry.readme.replace(/[/.]/g, "_")}_${block.line}`
      const context: Context = { ...shared, home: dir, page: `${shared.pageOrigin}${name}.html` }
      const file = path.join(dir, `${name}.ts`)
      fs.writeFileSync(file, programOf(block.code, run, context))
      // One page at a time: the pages share one stdio server behind the relay, which serves one client.
      const turn = pageTurn.then(() => slot(() => executeInPage(file, run, context)))
      pageTurn = turn.then(() => undefined, () => undefined)
      await turn
    }, RUN_LIMIT_MS * 3)
  }

  for (const [n, entry] of entries.entries()) {
    const run = entry.run
    if (run === undefined) continue
    it.concurrent(`${entry.readme}: ${entry.marker.split("\n")[0]}`, async ({ skip }) => {
      if (shared === undefined) throw new Error("the servers did not start")
      const block = entryBlock(entry)
      const home = fs.mkdtempSync(path.join(dir, `home-${n}-`))
      const context: Context = { ...shared, home, page: "" }
      const missing = run.needs?.(context)
      if (missing !== undefined) return skip(missing)
      const file = path.join(dir, `${entry.readme.replace(/[/.]/g, "_")}_${block.line}.ts`)
      fs.writeFileSync(file, programOf(block.code, run, context))
      const outcome = await slot(async () => execute(file, run, context, await run.prepare?.(context) ?? {}))
      const where = `${entry.readme}:${block.line}\n--- stdout\n${outcome.stdout}\n--- stderr\n${outcome.stderr}`
      assert.strictEqual(outcome.code, 0, `exit ${outcome.code} ${outcome.signal}: ${where}`)
      assert.match(outcome.stdout, run.prints, where)
      assert.deepStrictEqual(outcome.left, [], `processes left behind: ${where}`)
      run.after?.(context)
    }, RUN_LIMIT_MS * 3)
  }
})
