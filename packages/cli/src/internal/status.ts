/**
 * The live line on stderr: the progress bar of a call. On a terminal it is redrawn in place and cleared
 * before anything else is written (a log message, a prompt); elsewhere each report is a line of its own.
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
}

const render = (report: McpClient.ProgressReport): string => {
  const message = report.message === undefined ? "" : ` ${visible(report.message)}`
  if (report.total === undefined || report.total <= 0) return `progress ${report.progress}${message}`
  const ratio = Math.min(1, Math.max(0, report.progress / report.total))
  const filled = Math.round(ratio * BAR)
  const percent = `${Math.round(ratio * 100)}%`.padStart(4)
  return `[${"#".repeat(filled)}${"-".repeat(BAR - filled)}] ${percent} (${report.progress}/${report.total})${message}`
}

export const make = (stream: NodeJS.WriteStream = process.stderr): StatusLine => {
  const live = stream.isTTY === true
  let shown = false
  const clear = () => {
    if (live && shown) stream.write("\r\x1b[2K")
    shown = false
  }
  return {
    progress: (report) => {
      if (live) {
        stream.write(`\r\x1b[2K${render(report)}`)
        shown = true
      } else {
        stream.write(`${render(report)}\n`)
      }
    },
    clear,
    line: (text) => {
      clear()
      stream.write(`${visible(text)}\n`)
    }
  }
}
