/**
 * The live line on stderr: the progress bar of a call, or what the command waits for (a browser step). On a
 * terminal it is redrawn in place and cleared before anything else is written (a log message, a prompt);
 * elsewhere each report is a line of its own.
 */
import type { McpClient } from "@mcp-effect/client"
import { visible } from "./sanitize.js"

const BAR = 24

export interface StatusLine {
  readonly progress: (report: McpClient.ProgressReport) => void
  /** Clear the live line (before other output). */
  readonly clear: () => void
  /** Write a whole line to stderr above the live line (a server's controls made visible). */
  readonly line: (text: string) => void
  /** A line whose `strong` parts are bold on a terminal (unless `NO_COLOR`); every part made visible. */
  readonly styled: (parts: ReadonlyArray<StyledPart>) => void
  /** What the command is waiting for, as the live line (a line of its own when not at a terminal). */
  readonly note: (text: string) => void
}

export interface StyledPart {
  readonly text: string
  readonly strong?: boolean
}

const render = (report: McpClient.ProgressReport): string => {
  const message = report.message === undefined ? "" : ` ${visible(report.message)}`
  if (report.total === undefined || report.total <= 0) return `progress ${report.progress}${message}`
  const ratio = Math.min(1, Math.max(0, report.progress / report.total))
  const filled = Math.round(ratio * BAR)
  const percent = `${Math.round(ratio * 100)}%`.padStart(4)
  return `[${"#".repeat(filled)}${"-".repeat(BAR - filled)}] ${percent} (${report.progress}/${report.total})${message}`
}

const BOLD = "\x1b[1m"
const NORMAL = "\x1b[22m"

export const make = (stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): StatusLine => {
  const live = stream.isTTY === true
  const bold = live && (env["NO_COLOR"] === undefined || env["NO_COLOR"] === "")
  let shown = false
  const show = (text: string) => {
    if (live) {
      stream.write(`\r\x1b[2K${text}`)
      shown = true
    } else {
      stream.write(`${text}\n`)
    }
  }
  const clear = () => {
    if (live && shown) stream.write("\r\x1b[2K")
    shown = false
  }
  return {
    progress: (report) => show(render(report)),
    clear,
    line: (text) => {
      clear()
      stream.write(`${visible(text)}\n`)
    },
    styled: (parts) => {
      clear()
      const text = parts.map((part) =>
        part.strong === true && bold ? `${BOLD}${visible(part.text)}${NORMAL}` : visible(part.text)
      )
      stream.write(`${text.join("")}\n`)
    },
    note: (text) => show(visible(text))
  }
}
