/**
 * Classes of what a tool throws, as the log records them (`tool.errored.errorClass`) and
 * telemetry reads them (`error.type`): a closed set, never the error's free text (which may hold
 * paths, input or secrets) — the seeds' `classifyToolError`. Pure: the call step, the telemetry
 * projection and toolkernel/otel share it.
 */
/** The errno codes `error.type` may carry (POSIX and Node's DNS codes): a closed set. */
export const ERRNO_CODES: ReadonlySet<string> = new Set(
  (
    'E2BIG EACCES EADDRINUSE EADDRNOTAVAIL EAFNOSUPPORT EAGAIN EAI_AGAIN EALREADY EBADF EBUSY ECANCELED ECHILD ' +
    'ECONNABORTED ECONNREFUSED ECONNRESET EDEADLK EDESTADDRREQ EDOM EDQUOT EEXIST EFAULT EFBIG EHOSTUNREACH EILSEQ ' +
    'EINPROGRESS EINTR EINVAL EIO EISCONN EISDIR ELOOP EMFILE EMLINK EMSGSIZE ENAMETOOLONG ENETDOWN ENETRESET ' +
    'ENETUNREACH ENFILE ENOBUFS ENODATA ENODEV ENOENT ENOEXEC ENOMEM ENOSPC ENOSYS ENOTCONN ENOTDIR ENOTEMPTY ' +
    'ENOTFOUND ENOTSOCK ENOTSUP ENOTTY ENXIO EOPNOTSUPP EOVERFLOW EPERM EPIPE EPROTO ERANGE EROFS ESPIPE ESRCH ' +
    'ETIMEDOUT ETXTBSY EXDEV'
  ).split(' '),
)

/** An error name `error.type` may carry: an identifier ending in Error or Exception, at most 64 characters. */
export function isErrorName(name: string): boolean {
  return /^[A-Za-z_$][\w$]{0,63}$/.test(name) && /(Error|Exception)$/.test(name)
}

/** Whether a recorded class is one the closed set allows (a `TelemetrySafeError` class is short and plain). */
export function isErrorClass(value: string): boolean {
  return /^[A-Za-z0-9_.:-]{1,64}$/.test(value)
}

/**
 * An error whose telemetry class the tool's author vouches for: `telemetryClass` goes to
 * `error.type` as is (letters, digits, `_ . : -`, at most 64 characters), `message` to the model.
 *
 * @example
 * throw new TelemetrySafeError('rate_limited', 'the API refused: too many requests; wait a minute')
 */
export class TelemetrySafeError extends Error {
  readonly telemetryClass: string
  constructor(telemetryClass: string, message: string = telemetryClass, options?: ErrorOptions) {
    super(message, options)
    this.telemetryClass = isErrorClass(telemetryClass) ? telemetryClass : 'TelemetrySafeError'
  }
}

/**
 * The class of a thrown value: a {@link TelemetrySafeError}'s class, an errno code (`ENOENT`), the
 * error's name (`TypeError`, `AbortError`), `Error` for a plain one, else `unknown`.
 */
export function classifyToolError(error: unknown): string {
  if (error instanceof TelemetrySafeError) return error.telemetryClass
  if (!(error instanceof Error)) return 'unknown'
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && ERRNO_CODES.has(code)) return code
  if (isErrorName(error.name)) return error.name
  return 'Error'
}

/**
 * The class of a tool error from its model-facing text (`<Tool> failed: <describeError>`), for
 * logs written before `tool.errored` recorded it: the errno code or error name the text starts
 * with, else `Error`. No free text is ever taken.
 */
export function classOfToolErrorText(message: string): string {
  const head = /^.*? failed: ([A-Za-z_$][\w$]{0,63}): /.exec(message)?.[1]
  if (head === undefined) return 'Error'
  return ERRNO_CODES.has(head) || isErrorName(head) ? head : 'Error'
}
