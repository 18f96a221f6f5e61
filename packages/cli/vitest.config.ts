import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// Every test runs the command as a process, often several times, each starting a server: generous limits
// for a loaded machine (nothing here is timed; the limits only catch a hang).
export default mergeConfig(
  shared,
  defineProject({ test: { name: "cli", testTimeout: 120_000, hookTimeout: 60_000 } })
)
