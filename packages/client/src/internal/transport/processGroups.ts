import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as NodeFs from "node:fs"

/**
 * The process groups of the servers the Node stdio transport (`nodeStdio.ts`) started; it is their one owner.
 * Every such server is spawned `detached` (a group of its own, so that Ctrl-C in a terminal does not reach it
 * behind the client's back), which means nothing ends its children when the server itself exits, or when this
 * process is told to stop. This module does. (The portable transport, `stdio.ts`, leaves its groups to the
 * `effect/process` spawner, which signals a child's group when its scope closes.)
 *
 * - `terminate(pgid)` signals the whole group, whether its leader is still running or not, then checks which
 *   members are still running (zombies do not count).
 * - While any group is registered, SIGINT, SIGTERM and SIGHUP to this process that nothing else listens for end
 *   every group (SIGTERM), then the handler is removed and the signal raised again, so the process stops as it
 *   would have. When the program has its own handler (e.g. `NodeRuntime.runMain`, which interrupts the program
 *   so that scopes close and servers are stopped in order), that handler decides. On `exit`, whatever is still
 *   registered is SIGKILLed.
 * - Nothing survives a SIGKILL of this process that way: servers that exit when their stdin closes do, their
 *   children and servers that ignore stdin do not (see the README).
 *
 * @internal
 */

/**
 * `node:fs`, asked of the runtime when first needed rather than imported: the portable stdio transport
 * (`stdio.ts`) uses this module too, and a static or lazy `import` of `node:fs` would be pulled into every
 * browser or Worker bundle of the package's main entry. Runtimes that spawn processes (Node, Bun, Deno) have it.
 */
const fsModule = (): typeof NodeFs => process.getBuiltinModule("node:fs")

const groups = new Set<number>()
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const
let installed = false

const signalAll = (signal: NodeJS.Signals) => {
  for (const pgid of groups) signalGroup(pgid, signal)
}

const onSignal = (signal: NodeJS.Signals) => {
  // The program handles it (e.g. `NodeRuntime.runMain` interrupts it): its scopes end the servers in order,
  // after a call in flight has been cancelled on the wire, and `exit` ends whatever is left. This listener runs
  // first (it is prepended), so a program handler that removes itself when it runs is still counted.
  if (process.listenerCount(signal) > 1) return
  signalAll("SIGTERM")
  uninstall()
  process.kill(process.pid, signal)
}

const onExit = () => signalAll("SIGKILL")

const install = () => {
  if (installed) return
  installed = true
  for (const signal of SIGNALS) process.prependListener(signal, onSignal)
  process.on("exit", onExit)
}

const uninstall = () => {
  if (!installed) return
  installed = false
  for (const signal of SIGNALS) process.off(signal, onSignal)
  process.off("exit", onExit)
}

/** Remember a server's process group while it may have members. @internal */
export const register = (pgid: number): void => {
  groups.add(pgid)
  install()
}

/** Forget a group whose members are all gone. @internal */
export const unregister = (pgid: number): void => {
  groups.delete(pgid)
  if (groups.size === 0) uninstall()
}

/** Send `signal` to every process of the group; `false` when the group has no process left. @internal */
export const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * The text of `/proc/<pid>/stat` after the command name: `state ppid pgrp ...`; `undefined` when it cannot be
 * read (not Linux, or the process is gone). Read into one buffer kept for the purpose: `readFileSync` takes a
 * fresh 64 KiB buffer for every file of unknown size, which over the /proc scans of a close (a few hundred
 * files) left megabytes of freed memory in the process's resident set.
 */
const statFields = (pid: number | string): string | undefined => {
  const fs = fsModule()
  let fd: number
  try {
    fd = fs.openSync(`/proc/${pid}/stat`, "r")
  } catch {
    return undefined
  }
  try {
    // The fields read here come right after the command name (at most 64 bytes): one read has them.
    const buffer = (statBuffer ??= new Uint8Array(1024))
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0)
    const stat = (latin1 ??= new TextDecoder("latin1")).decode(buffer.subarray(0, read))
    const close = stat.lastIndexOf(")")
    return close < 0 ? undefined : stat.slice(close + 2)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}
// Made on first use, where processes are spawned: nothing of this runs when a page or a Worker imports the module.
let statBuffer: Uint8Array | undefined
let latin1: InstanceType<typeof TextDecoder> | undefined

/**
 * Whether any member of the group is still running. A group that cannot be signalled has no member at all (the
 * usual case once a server has exited and been reaped: no /proc scan then). Otherwise, on Linux, read from /proc
 * so that zombies (exited, not yet reaped by an init that does not reap) do not count; elsewhere, whether the
 * group can still be signalled.
 *
 * @internal
 */
export const hasRunningMembers = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
  } catch (cause) {
    // ESRCH: no process in the group. Another refusal (EPERM) says nothing of its members: /proc does.
    if (typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ESRCH") return false
  }
  let entries: Array<string>
  try {
    entries = fsModule().readdirSync("/proc")
  } catch {
    return signalGroup(pgid, 0)
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue
    // fields: state, ppid, pgrp, ...
    const fields = statFields(entry)?.split(" ", 3)
    if (fields !== undefined && Number(fields[2]) === pgid && fields[0] !== "Z") return true
  }
  return false
}

/** Each process's parent and state, from /proc (Linux); empty elsewhere. */
const processTable = (): Map<number, { readonly ppid: number; readonly pgrp: number; readonly zombie: boolean }> => {
  const table = new Map<number, { readonly ppid: number; readonly pgrp: number; readonly zombie: boolean }>()
  let entries: Array<string>
  try {
    entries = fsModule().readdirSync("/proc")
  } catch {
    return table
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue
    // gone meanwhile: left out
    const fields = statFields(entry)?.split(" ", 3)
    if (fields !== undefined) {
      table.set(Number(entry), { ppid: Number(fields[1]), pgrp: Number(fields[2]), zombie: fields[0] === "Z" })
    }
  }
  return table
}

/**
 * The descendants of `pid` (by parent pid, Linux) that are not in its process group: children it started in a
 * session or group of their own (`setsid`), which a signal to the group misses. Read while `pid` is alive: once
 * it is gone they belong to init. @internal
 */
export const outsideDescendants = (pid: number): ReadonlyArray<number> => {
  const table = processTable()
  const children = new Map<number, Array<number>>()
  for (const [child, info] of table) {
    const siblings = children.get(info.ppid)
    if (siblings === undefined) children.set(info.ppid, [child])
    else siblings.push(child)
  }
  const found: Array<number> = []
  const queue = [pid]
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const child of children.get(next) ?? []) {
      if (table.get(child)?.pgrp !== pid) found.push(child)
      queue.push(child)
    }
  }
  return found
}

const running = (pid: number) => {
  const fields = statFields(pid)
  if (fields !== undefined) return fields[0] !== "Z"
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const signalPid = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal)
  } catch {
    // gone
  }
}

/** End processes found by `outsideDescendants`: SIGTERM, up to `grace` of real time, SIGKILL. @internal */
export const terminatePids = (pids: ReadonlyArray<number>, grace: Duration.Duration): Effect.Effect<void> =>
  Effect.gen(function*() {
    let left = pids.filter(running)
    if (left.length === 0) return
    for (const pid of left) signalPid(pid, "SIGTERM")
    const deadline = Date.now() + Duration.toMillis(grace)
    while (Date.now() < deadline) {
      yield* realSleep(25)
      left = left.filter(running)
      if (left.length === 0) return
    }
    for (const pid of left) signalPid(pid, "SIGKILL")
  })

const realSleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/**
 * End what is left of a server's process group (children of a server that exited by itself, or that died by a
 * signal): SIGTERM, a wait of up to `grace` (real time: this watches the OS, not the program's clock), then
 * SIGKILL; the group is forgotten.
 *
 * @internal
 */
export const terminate = (pgid: number, grace: Duration.Duration): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (pgid <= 0 || !hasRunningMembers(pgid)) return
    signalGroup(pgid, "SIGTERM")
    const deadline = Date.now() + Duration.toMillis(grace)
    while (Date.now() < deadline) {
      yield* realSleep(25)
      if (!hasRunningMembers(pgid)) return
    }
    signalGroup(pgid, "SIGKILL")
  }).pipe(Effect.ensuring(Effect.sync(() => unregister(pgid))))
