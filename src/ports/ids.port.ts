/** Produces ids for turns (and anything else the kernel must name). */
export interface IdGenerator {
  next(prefix: string): string
}
