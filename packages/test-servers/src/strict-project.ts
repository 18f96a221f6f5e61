/**
 * For the tests of generated code (not a server): a folder for generated modules and the programs that use them, type-checked as a strict project would be:
 * it resolves the workspace's packages (a `node_modules` link) and its `tsconfig.json` is strict, with
 * `exactOptionalPropertyTypes`, NodeNext modules and `.ts` imports. Check it with `tsc -p DIR`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The repository's root (this file runs from `packages/test-servers/dist`). */
export const repo = path.resolve(import.meta.dirname, "../../..")

/** The TypeScript compiler the workspace builds with. */
export const tsc = path.join(repo, "node_modules/typescript/bin/tsc")

/** A new temporary folder named from `prefix`, set up as above; the caller removes it. */
export const strictFolder = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"))
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: ["node"]
      },
      include: ["*.ts"]
    })
  )
  return dir
}
