/**
 * The configuration files people already have, found when no `--config` is given: the project's own
 * (`./.mcp.json`, `./mcp.json`, VS Code's `./.vscode/mcp.json`, Cursor's `./.cursor/mcp.json`), then the user's
 * (Cursor, Claude Desktop, Windsurf, Claude Code), first found wins. The command says on stderr which file
 * it used when it found one itself (a project's `.mcp.json`/`mcp.json` goes without saying).
 */
import { existsSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface Candidate {
  readonly path: string
  /** Who writes this file. */
  readonly app: string
  /** Whether the command names the file when it uses it (not for `./.mcp.json` and `./mcp.json`). */
  readonly announce: boolean
}

/** Where Claude Desktop keeps its configuration on this platform. */
const claudeDesktop = (home: string, env: NodeJS.ProcessEnv): string => {
  switch (process.platform) {
    case "darwin":
      return path.join(home, "Library/Application Support/Claude/claude_desktop_config.json")
    case "win32":
      return path.join(env["APPDATA"] ?? path.join(home, "AppData/Roaming"), "Claude/claude_desktop_config.json")
    default: {
      const xdg = env["XDG_CONFIG_HOME"]
      return path.join(xdg !== undefined && xdg !== "" ? xdg : path.join(home, ".config"), "Claude/claude_desktop_config.json")
    }
  }
}

/** Every place looked at, in order (`home`: `$HOME`, else the OS's). */
export const candidates = (cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): ReadonlyArray<Candidate> => {
  const home = env["HOME"] ?? os.homedir()
  return [
    { path: path.join(cwd, ".mcp.json"), app: "project", announce: false },
    { path: path.join(cwd, "mcp.json"), app: "project", announce: false },
    { path: path.join(cwd, ".vscode/mcp.json"), app: "VS Code (workspace)", announce: true },
    { path: path.join(cwd, ".cursor/mcp.json"), app: "Cursor (project)", announce: true },
    { path: path.join(home, ".cursor/mcp.json"), app: "Cursor", announce: true },
    { path: claudeDesktop(home, env), app: "Claude Desktop", announce: true },
    { path: path.join(home, ".codeium/windsurf/mcp_config.json"), app: "Windsurf", announce: true },
    { path: path.join(home, ".claude.json"), app: "Claude Code", announce: true }
  ]
}

/** The first configuration file that exists, if any. */
export const discover = (cwd?: string, env?: NodeJS.ProcessEnv): Candidate | undefined =>
  candidates(cwd, env).find((candidate) => existsSync(candidate.path))

/** The relative path of a project file, the absolute one otherwise. */
export const shown = (candidate: Candidate, cwd: string = process.cwd()): string => {
  const relative = path.relative(cwd, candidate.path)
  return relative.startsWith("..") || path.isAbsolute(relative) ? candidate.path : relative
}
