/**
 * The error of the input fulfiller, in a module of its own: its implementation constructs it, and the
 * `InputFulfiller` module re-exports it.
 *
 * @since 0.3.0
 */
import * as Data from "effect/Data"

/**
 * Why an input request was refused. `abandon` means the protocol has no refusal to send (a modern sampling
 * request), so the call that needed the input must end.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputRefused extends Data.TaggedError("InputRefused")<{
  readonly method: string
  readonly code: number
  readonly message: string
  readonly abandon: boolean
}> {}
