import * as path from "node:path"
import type { ViteUserConfig } from "vitest/config"

const root = path.dirname(new URL(import.meta.url).pathname)

/** Settings every package's vitest project shares. Workspace packages resolve to their sources. */
export const shared: ViteUserConfig = {
  resolve: {
    alias: [
      { find: /^@mcp-effect\/client$/, replacement: path.join(root, "packages/client/src/index.ts") },
      { find: /^@mcp-effect\/client\/(.*)$/, replacement: path.join(root, "packages/client/src/$1.ts") },
      { find: /^@mcp-effect\/ai$/, replacement: path.join(root, "packages/ai/src/index.ts") },
      { find: /^@mcp-effect\/ai\/(.*)$/, replacement: path.join(root, "packages/ai/src/$1.ts") }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: [path.join(root, "vitest.setup.ts")],
    fakeTimers: { toFake: undefined },
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
}
